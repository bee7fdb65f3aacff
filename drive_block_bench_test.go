package scn

import (
	"context"
	"testing"

	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
)

// digitsLike returns n synthetic 28 x 28 images of ten classes.
func digitsLike(b *testing.B, n int) Problem {
	x, y, names := blobs(n, 28, 28, 10, 11)
	p, err := Classification(x, y, names)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkGramBlockUpdate times the block engine's update for a block of
// 500 columns after 2000 (N = 10000): the new columns of G (in each Gram
// precision; bfloat16 packs the shard's 2500 columns for each block, as
// the block-by-block path does), the triangular solve and the Cholesky of
// the new diagonal block.
func BenchmarkGramBlockUpdate(b *testing.B) {
	const n, l0, k = 10000, 2000, 500
	hb, _, tt := gaussH(n, l0+k, 10, 1)
	for _, name := range gramPrecisions {
		b.Run(name, func(b *testing.B) {
			e := lsq.NewGram(tt.RawMatrix().Data, n, 10, 1, name != "float64", l0+k)
			e.BF16 = name == "bfloat16"
			e.AddBlock(hb[:l0*n], l0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e.AddBlock(hb[l0*n:], k)
				e.L, e.GD, e.HT = l0, e.GD[:l0], e.HT[:l0*10]
				for s := range e.Shards {
					sh := &e.Shards[s]
					sh.H = sh.H[:l0*(sh.Hi-sh.Lo)]
				}
			}
			flops := float64(n) * float64(k) * float64(l0+k) * 2 // the new columns of G
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s(G)")
		})
	}
}

// BenchmarkBlockStep times one supervised block step of Fast(SCN2D) with
// pair scoring at N = 10000 after 1000 nodes: 1024 candidates as 32 x 32
// pairs, their correlations with the residual, the choice of 500, the
// engine update and the new residual.
func BenchmarkBlockStep(b *testing.B) {
	p := digitsLike(b, 10000)
	c := Fast(SCN2D)
	c.Pairs = true
	bb := newBlockBuilder(c, p, runOpts{})
	for len(bb.Bias) < 1000 {
		if _, ok := drive.SupervisedBlock(bb.Spec, bb.Block, 500); !ok {
			b.Fatal("no admissible candidate")
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok := drive.SupervisedBlock(bb.Spec, bb.Block, 500); !ok {
			b.Fatal("no admissible candidate")
		}
	}
	b.ReportMetric(float64(len(bb.Bias)), "nodes_at_end")
}

// BenchmarkPairScoring compares scoring 1024 2D candidates as 32 x 32
// pairs with scoring them one by one (each its own weight vec(u v^T)), on
// N = 10000 images of 28 x 28.
func BenchmarkPairScoring(b *testing.B) {
	const n, side = 10000, 32
	x, _, _ := blobs(n, 28, 28, 10, 3)
	u := make([]float32, side*28)
	v := make([]float32, side*28)
	for i := range u {
		u[i] = float32(i%7) - 3
		v[i] = float32(i%5) - 2
	}
	z := make([]float32, side*side*n)
	b.Run("pairs", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			scorePairs(x, u, side, v, side, z)
		}
		b.ReportMetric(float64(side*side*b.N)/b.Elapsed().Seconds(), "candidates/s")
	})
	b.Run("one-by-one", func(b *testing.B) {
		w := make([]float32, side*side*784)
		mm := matrixMap{Rows: 28, Cols: 28, Ch: 1}
		p := make([]float32, 56)
		for t := 0; t < side; t++ {
			for s := 0; s < side; s++ {
				copy(p, u[s*28:(s+1)*28])
				copy(p[28:], v[t*28:(t+1)*28])
				mm.Weight(p, w[(t*side+s)*784:])
			}
		}
		for i := 0; i < b.N; i++ {
			linalg.ScoreNT(side*side, n, 784, w, x.Pix, z, n)
		}
		b.ReportMetric(float64(side*side*b.N)/b.Elapsed().Seconds(), "candidates/s")
	})
}

// BenchmarkFastFit times a whole fit of the fast preset on N = 10000
// synthetic 28 x 28 images, with L_max = 2000 (the preset's 7000 nodes are
// for 60000 images).
func BenchmarkFastFit(b *testing.B) {
	p := digitsLike(b, 10000)
	for _, k := range []Kind{SCN2D, RVFL2D} {
		b.Run(k.String(), func(b *testing.B) {
			c := Fast(k)
			c.MaxNodes = 2000
			for i := 0; i < b.N; i++ {
				if _, err := c.Fit(context.Background(), p, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBlockLeastSquares compares the two ways of growing the least
// squares by blocks, on the same H (N = 10000, 2000 columns in blocks of
// 500): the Gram/Cholesky engine (float32 and float64 Gram products) and
// the tiled CGS2 QR of the one-node path (lsq.addBlock, float64).
func BenchmarkBlockLeastSquares(b *testing.B) {
	const n, l, k, m = 10000, 2000, 500, 10
	hb, _, tt := gaussH(n, l, m, 4)
	h64 := make([]float64, len(hb))
	for i, v := range hb {
		h64[i] = float64(v)
	}
	for _, f32 := range []bool{true, false} {
		name := "gram-float32"
		if !f32 {
			name = "gram-float64"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				e := lsq.NewGram(tt.RawMatrix().Data, n, m, 1, f32, l)
				for j0 := 0; j0 < l; j0 += k {
					e.AddBlock(hb[j0*n:(j0+k)*n], k)
				}
				if _, err := e.Solve(l, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("qr-cgs2", func(b *testing.B) {
		w := make([]float64, k*n)
		for i := 0; i < b.N; i++ {
			s := lsq.NewQR(tt.RawMatrix().Data, n, m)
			for j0 := 0; j0 < l; j0 += k {
				copy(w, h64[j0*n:(j0+k)*n])
				s.AddBlock(w, k)
			}
			if _, err := s.Solve(l, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}
