package scn

import "testing"

// TestEstimateMemory: the estimate grows with what it should, and puts
// the cases that once exhausted memory in the gigabytes.
func TestEstimateMemory(t *testing.T) {
	c := Paper(SCN2D)
	c.MaxNodes = 1
	c.Candidates = 65536
	// 2.6 GB measured for one node on the built-in 3000 images.
	if e := c.EstimateMemory(3000, 28, 28, 10); e.Candidates < 2<<30 || e.Total() < e.Candidates {
		t.Errorf("65536 candidates on 3000 images: %+v", e)
	}
	r := Paper(RVFL2D)
	r.MaxNodes = 1 << 20
	if e := r.EstimateMemory(300, 28, 28, 10); e.Solve < 4<<30 {
		t.Errorf("2DRVFL with 2^20 nodes on 300 images: %+v", e)
	}
	small := Paper(SCN2D)
	small.MaxNodes = 100
	a := small.EstimateBytes(1000, 28, 28, 10)
	small.MaxNodes = 200
	b := small.EstimateBytes(1000, 28, 28, 10)
	if !(a > 0 && b > a && b < 100<<20) {
		t.Errorf("100 nodes: %d bytes, 200 nodes: %d", a, b)
	}
	// Saturates instead of overflowing.
	huge := Paper(RVFL)
	huge.MaxNodes = 1 << 62
	if e := huge.EstimateBytes(1<<40, 1<<20, 1<<20, 1<<20); e <= 0 {
		t.Errorf("huge estimate %d", e)
	}
}
