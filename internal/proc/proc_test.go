package proc

import (
	"testing"
	"time"
)

// TestCPUTimeGrows: CPU time never goes back, and a busy loop adds CPU
// time where the platform measures it. The loop runs until 10 ms of CPU
// time are counted or 5 s of wall time pass: a fixed 50 ms of wall time
// got 5.5 ms of CPU on a 2-core machine at load 10.
func TestCPUTimeGrows(t *testing.T) {
	t0 := CPUTime()
	if t0 < 0 {
		t.Fatalf("CPU time %v", t0)
	}
	x := 1.0
	limit := 50 * time.Millisecond // where CPU time is not measured
	if Known {
		limit = 5 * time.Second
	}
	for end := time.Now().Add(limit); time.Now().Before(end) && (!Known || CPUTime()-t0 < 10*time.Millisecond); {
		for i := 0; i < 1000; i++ {
			x = x*1.0000001 + 1e-9
		}
	}
	t1 := CPUTime()
	if t1 < t0 {
		t.Errorf("CPU time went back: %v after %v", t1, t0)
	}
	if Known && t1-t0 < 10*time.Millisecond {
		t.Errorf("a busy loop of 5 s added %v of CPU time (x = %v)", t1-t0, x)
	}
}
