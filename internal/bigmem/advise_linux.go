//go:build linux && (amd64 || arm64)

package bigmem

import (
	"syscall"
	"unsafe"
)

// The madvise advice values of Linux's asm-generic/mman-common.h, which
// amd64 and arm64 use.
const (
	madvHugepage      = 14
	madvPopulateWrite = 23
)

// advise asks for huge pages on the whole pages of b and maps them; errors
// (an old kernel, huge pages off) are ignored: the advice is only a hint.
func advise(b []byte) {
	const page = 4096
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((p+page-1)&^(page-1) - p)
	hi := len(b) - int((p+uintptr(len(b)))&(page-1))
	if hi-lo < page {
		return
	}
	_ = syscall.Madvise(b[lo:hi], madvHugepage)
	_ = syscall.Madvise(b[lo:hi], madvPopulateWrite)
}
