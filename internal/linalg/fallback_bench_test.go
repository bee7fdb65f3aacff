package linalg

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/scn2d/scn/internal/linalg/kernel"
	"github.com/scn2d/scn/internal/proc"
)

// cpuMetric reports the process's CPU time per operation since c0 (with
// -cpu 1 the benchmark's own; on a loaded machine it is steadier than the
// wall time) and the GFLOP/s of that CPU time for flops per operation.
func cpuMetric(b *testing.B, c0 time.Duration, flops float64) {
	s := (proc.CPUTime() - c0).Seconds() / float64(b.N)
	if s <= 0 {
		return // no CPU time on this OS
	}
	b.ReportMetric(s*1e9, "cpu-ns/op")
	b.ReportMetric(flops/s/1e9, "GFLOP/s")
}

// BenchmarkKernels times every hot kernel on one moderate shape each, so
// that the default (assembly) and the purego build can be compared in one
// run (docs/performance.md, "The pure-Go build"): run it with -cpu 1 in
// both builds and compare with benchstat.
func BenchmarkKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	b.Run("ScoreNT/k=5/n=20000", func(b *testing.B) { benchScoreNT(b, rng, 5, 20000, 784, false) })
	b.Run("ScoreNT/k=5/n=20000/fields", func(b *testing.B) { benchScoreNT(b, rng, 5, 20000, 784, true) })
	b.Run("ScoreNT/k=100/n=2000", func(b *testing.B) { benchScoreNT(b, rng, 100, 2000, 784, false) })
	b.Run("GramNT32/128x1000x2048", func(b *testing.B) {
		h := randomRows(rng, 1000, 2048, 2048)
		c := make([]float32, 128*1000)
		c0 := proc.CPUTime()
		for b.Loop() {
			GramNT32(128, 1000, 2048, h[872*2048:], h, c, 1000)
		}
		cpuMetric(b, c0, 2*128*1000*2048)
	})
	b.Run("GramBF16/128x256x2048", func(b *testing.B) {
		h := randomRows(rng, 256, 2048, 2048)
		var pk PackedBF16
		pk.Pack(256, 2048, h, 2048)
		c := make([]float32, 128*256)
		c0 := proc.CPUTime()
		for b.Loop() {
			GramBF16(&pk, 128, 256, 256, c, 256)
		}
		cpuMetric(b, c0, 2*128*256*2048)
	})
	b.Run("GemmNT64/128x128x2048", func(b *testing.B) {
		x, y, c := randSlice(rng, 128*2048), randSlice(rng, 128*2048), make([]float64, 128*128)
		c0 := proc.CPUTime()
		for b.Loop() {
			GemmNT64(128, 128, 2048, 1, x, 2048, y, 2048, 0, c, 128)
		}
		cpuMetric(b, c0, 2*128*128*2048)
	})
	b.Run("ProductTN32/28x64x4096", func(b *testing.B) {
		const l, m, r = 28, 64, 4096
		bb, h, p := randomRows(rng, l, m, m), randomRows(rng, l, r, r), make([]float32, m*r)
		c0 := proc.CPUTime()
		for b.Loop() {
			ProductTN32(l, m, r, bb, h, r, p, r)
		}
		cpuMetric(b, c0, 2*l*m*r)
	})
	b.Run("Score2D/c=1000/n=8", func(b *testing.B) {
		const c, n, d1, d2 = 1000, 8, 28, 28
		params, x, np := score2DCase(3, c, n, d1, d2, 0)
		z := make([]float32, c*n)
		c0 := proc.CPUTime()
		for b.Loop() {
			Score2D(c, n, d1, d2, params, np, x, z, n)
		}
		cpuMetric(b, c0, 2*c*n*d1*d2)
	})
	b.Run("DotRows4/n=512x16", func(b *testing.B) { benchRows4(b, rng, false) })
	b.Run("AxpyRows4/n=512x16", func(b *testing.B) { benchRows4(b, rng, true) })
}

// benchScoreNT times ScoreNT on k nodes (with fields: each node nonzero
// on 10 of the 28 rows only) and n images of d inputs.
func benchScoreNT(b *testing.B, rng *rand.Rand, k, n, d int, fields bool) {
	w, x := randomRows(rng, k, d, d), randomRows(rng, n, d, d)
	if fields {
		for j := 0; j < k; j++ {
			r0 := 28 * (3 + 3*j%15)
			for t := range d {
				if t < r0 || t >= r0+280 {
					w[j*d+t] = 0
				}
			}
		}
	}
	z := make([]float32, k*n)
	c0 := proc.CPUTime()
	for b.Loop() {
		ScoreNT(k, n, d, w, x, z, n)
	}
	cpuMetric(b, c0, 2*float64(k*n*d))
}

// benchRows4 times the Gram-Schmidt kernels on 16 tiles of 512 samples:
// four columns of Q 512 apart against one vector, as lsq's tileDots and
// tileAxpy call them.
func benchRows4(b *testing.B, rng *rand.Rand, axpy bool) {
	const n, tiles = 512, 16
	q, x := randSlice(rng, tiles*4*n), randSlice(rng, tiles*n)
	var o, c [4]float64
	c = [4]float64{0.5, -0.25, 0.125, 1}
	c0 := proc.CPUTime()
	for b.Loop() {
		for t := 0; t < tiles; t++ {
			if axpy {
				kernel.AxpyRows4(q[t*4*n:], n, &c, x[t*n:], n)
			} else {
				kernel.DotRows4(q[t*4*n:], n, x[t*n:], n, &o)
			}
		}
	}
	cpuMetric(b, c0, 2*4*n*tiles)
}
