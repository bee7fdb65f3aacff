// Package proc reads what the operating system keeps of the running
// process that the standard library does not expose portably: its CPU
// time. It serves the benchmarks (bench/curve) and the load generator
// (cmd/scnload), which report CPU seconds beside wall time.
package proc

import "time"

// CPUTime returns the user and system CPU time the process has used so
// far: getrusage(RUSAGE_SELF) on Unix systems (Linux, macOS, the BSDs),
// GetProcessTimes on Windows. Known reports whether the platform gives it;
// where it does not, CPUTime returns 0.
func CPUTime() time.Duration { return cpuTime() }

// Known reports whether CPUTime measures anything on this platform.
const Known = known
