//go:build darwin || freebsd

package main

import (
	"math"
	"runtime"

	"golang.org/x/sys/unix"
)

// physicalMemory returns the machine's physical memory in bytes (0 if
// unknown): sysctl hw.memsize on macOS, hw.physmem on FreeBSD.
func physicalMemory() int64 {
	name := "hw.physmem"
	if runtime.GOOS == "darwin" {
		name = "hw.memsize"
	}
	v, err := unix.SysctlUint64(name)
	if err != nil || v > math.MaxInt64/2 {
		return 0
	}
	return int64(v)
}

// addressLimit returns the address-space limit (ulimit -v) in bytes, or 0
// without one.
func addressLimit() int64 {
	var r unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &r) != nil || r.Cur > math.MaxInt64/2 {
		return 0
	}
	return int64(r.Cur)
}
