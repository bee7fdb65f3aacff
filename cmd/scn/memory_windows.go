//go:build windows

package main

import (
	"math"
	"unsafe"

	"golang.org/x/sys/windows"
)

// memoryStatusEx is Windows' MEMORYSTATUSEX.
type memoryStatusEx struct {
	length, memoryLoad                  uint32
	totalPhys, availPhys                uint64
	totalPageFile, availPageFile        uint64
	totalVirtual, availVirtual, availEx uint64
}

var globalMemoryStatusEx = windows.NewLazySystemDLL("kernel32.dll").NewProc("GlobalMemoryStatusEx")

// physicalMemory returns the machine's physical memory in bytes
// (GlobalMemoryStatusEx), 0 if unknown.
func physicalMemory() int64 {
	ms := memoryStatusEx{length: uint32(unsafe.Sizeof(memoryStatusEx{}))}
	if r, _, _ := globalMemoryStatusEx.Call(uintptr(unsafe.Pointer(&ms))); r == 0 || ms.totalPhys > math.MaxInt64/2 {
		return 0
	}
	return int64(ms.totalPhys)
}

// addressLimit returns 0: Windows has no ulimit -v (a job object's limit
// is not read).
func addressLimit() int64 { return 0 }
