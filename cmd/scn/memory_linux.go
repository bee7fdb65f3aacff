package main

import (
	"math"
	"syscall"
)

// physicalMemory returns the machine's physical memory in bytes (0 if
// unknown).
func physicalMemory() int64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	total := float64(si.Totalram) * float64(max(si.Unit, 1))
	return int64(min(total, math.MaxInt64/2))
}

// addressLimit returns the address-space limit (ulimit -v) in bytes, or 0
// without one.
func addressLimit() int64 {
	var r syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &r) != nil || r.Cur > math.MaxInt64/2 {
		return 0
	}
	return int64(r.Cur)
}
