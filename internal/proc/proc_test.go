package proc

import (
	"testing"
	"time"
)

// TestCPUTimeGrows: CPU time never goes back, and a busy loop of 50 ms of
// wall time adds CPU time where the platform measures it.
func TestCPUTimeGrows(t *testing.T) {
	t0 := CPUTime()
	if t0 < 0 {
		t.Fatalf("CPU time %v", t0)
	}
	x := 1.0
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
		for i := 0; i < 1000; i++ {
			x = x*1.0000001 + 1e-9
		}
	}
	t1 := CPUTime()
	if t1 < t0 {
		t.Errorf("CPU time went back: %v after %v", t1, t0)
	}
	if Known && t1-t0 < 10*time.Millisecond {
		t.Errorf("a 50 ms busy loop added %v of CPU time (x = %v)", t1-t0, x)
	}
}
