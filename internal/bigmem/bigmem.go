// Package bigmem allocates the large float64 buffers of the sufficient
// statistics (G = H^T H is 8 L^2 bytes: 200 MB at L = 5000) so that the
// memory is mapped in few steps. A fresh Go allocation is mapped page by
// page (4 KiB) as it is first written, one page fault each; on a virtual
// machine that cost about 4 ms of CPU per MB (0.8 s for one 200 MB G,
// measured on the project's 2-core AMD EPYC guest), more than reading the
// same bytes from a file. On Linux (amd64, arm64), Float64s asks the
// kernel for transparent huge pages on the buffer (madvise MADV_HUGEPAGE)
// and to map all of it at once (MADV_POPULATE_WRITE, Linux 5.14 and
// later): the same 200 MB then took 40 ms. Both are hints: a kernel that
// refuses them (older, or huge pages disabled) leaves the buffer as Go
// made it, and its contents (zeros) are the same either way.
//
// Within par.Background (a served model's online learning) the hints are
// not given: mapping a buffer in one call holds the process's memory-map
// lock for all of it, and a thread of low priority holding it stalls the
// page faults of every other thread (the predictions) until the system
// gives it the CPU again. The buffer is then mapped page by page.
package bigmem

import (
	"unsafe"

	"github.com/scn2d/scn/internal/par"
)

// Threshold is the size in bytes from which Float64s advises the kernel.
const Threshold = 1 << 24

// Float64s returns a zeroed slice of n float64 values, mapped in advance
// when it is large (see the package comment).
func Float64s(n int) []float64 {
	s := make([]float64, n)
	if n >= Threshold/8 && !par.InBackground() {
		advise(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 8*n))
	}
	return s
}
