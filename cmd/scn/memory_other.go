//go:build !linux && !darwin && !freebsd && !windows

package main

// physicalMemory returns 0: unknown on this system (the default limit is
// then half of an assumed 8 GiB).
func physicalMemory() int64 { return 0 }

// addressLimit returns 0: no address-space limit is read on this system.
func addressLimit() int64 { return 0 }
