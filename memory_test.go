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

// TestEstimateMemoryBlockFits: a block fit counts G and its factor
// (L x L float64) and H (N x L float32), except a one-pass fit (random
// nodes with a ridge), which holds no H.
func TestEstimateMemoryBlockFits(t *testing.T) {
	const n, l, m = 60000, 7000, 10
	gram, h := int64(8*l*l), int64(4*n*l)
	fast := func(k Kind) Config { c := Fast(k); c.MaxNodes = l; return c }
	one := fast(RVFL2D).EstimateMemory(n, 28, 28, m)
	if one.Factor < gram || one.Factor > gram+h/4 || one.Solve != 0 {
		t.Errorf("one-pass 2DRVFL at MNIST scale: %+v, want G (%d) and far less than H (%d)", one, gram, h)
	}
	if one.Candidates < 4*l*(28+28) {
		t.Errorf("one-pass 2DRVFL: the nodes' parameters are not counted: %+v", one)
	}
	f64 := fast(RVFL2D)
	f64.Float32Gram, f64.BF16Gram = false, false
	if e := f64.EstimateMemory(n, 28, 28, m); e.Factor < one.Factor+4*l*2048 {
		t.Errorf("float64 Gram products: the shard's float64 copy is not counted: %+v", e)
	}
	f32, bf := fast(RVFL2D), fast(RVFL2D)
	f32.BF16Gram, bf.BF16Gram = false, true
	if e, e32 := bf.EstimateMemory(n, 28, 28, m), f32.EstimateMemory(n, 28, 28, m); e.Factor < e32.Factor-2*l*2048 || e.Factor > e32.Factor-l*2048 {
		t.Errorf("bfloat16 Gram products: a one-pass fit holds the shard packed (2 bytes an output, not 4): %+v against %+v", e, e32)
	}
	noRidge := fast(RVFL2D)
	noRidge.Ridge = 0
	if e := noRidge.EstimateMemory(n, 28, 28, m); e.Factor < gram+h {
		t.Errorf("2DRVFL without a ridge keeps H: %+v, want at least %d", e, gram+h)
	}
	sup := fast(SCN2D).EstimateMemory(n, 28, 28, m)
	if sup.Factor < gram+h {
		t.Errorf("fast 2DSCN keeps H: %+v, want at least %d", sup, gram+h)
	}
	// Past N with a ridge the engine solves: no dense solve is counted.
	small := Fast(RVFL)
	small.MaxNodes = 2000
	if e := small.EstimateMemory(500, 28, 28, m); e.Solve != 0 {
		t.Errorf("block RVFL past N with a ridge: %+v", e)
	}
	small.Ridge = 0
	if e := small.EstimateMemory(500, 28, 28, m); e.Solve == 0 {
		t.Errorf("block RVFL past N without a ridge: the minimum-norm solve is not counted: %+v", e)
	}
}
