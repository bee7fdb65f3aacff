package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randSlice(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.NormFloat64()
	}
	return s
}

func TestGemmNT64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][3]int{{1, 1, 1}, {5, 7, 3}, {50, 33, 100}, {97, 130, 517}} {
		m, n, k := sz[0], sz[1], sz[2]
		lda, ldb, ldc := k+3, k+1, n+2
		a, b := randSlice(rng, m*lda), randSlice(rng, n*ldb)
		c := randSlice(rng, m*ldc)
		want := append([]float64(nil), c...)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for t := 0; t < k; t++ {
					s += a[i*lda+t] * b[j*ldb+t]
				}
				want[i*ldc+j] = 0.5*want[i*ldc+j] - 2*s
			}
		}
		GemmNT64(m, n, k, -2, a, lda, b, ldb, 0.5, c, ldc)
		for i := range c {
			if math.Abs(c[i]-want[i]) > 1e-10*(1+math.Abs(want[i])) {
				t.Fatalf("%v: C[%d] = %.15g, want %.15g", sz, i, c[i], want[i])
			}
		}
	}
}

func TestTrsmRightLowerT(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][2]int{{1, 1}, {7, 5}, {130, 200}, {65, 129}} {
		m, n := sz[0], sz[1]
		lda, ldb := n+1, n+3
		a := randSlice(rng, n*lda)
		for j := 0; j < n; j++ {
			a[j*lda+j] = 3 + math.Abs(a[j*lda+j])
			for i := 0; i < j; i++ {
				a[i*lda+j] = math.NaN() // above the diagonal: never read
			}
			for i := 0; i < j; i++ {
				a[j*lda+i] *= 0.1
			}
		}
		x := randSlice(rng, m*ldb)
		// B = X A^T, then solve back for X.
		b := make([]float64, m*ldb)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for t := 0; t <= j; t++ {
					s += x[i*ldb+t] * a[j*lda+t]
				}
				b[i*ldb+j] = s
			}
		}
		TrsmRightLowerT(m, n, a, lda, b, ldb)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				if d := math.Abs(b[i*ldb+j] - x[i*ldb+j]); d > 1e-10*(1+math.Abs(x[i*ldb+j])) {
					t.Fatalf("%v: X[%d,%d] = %.15g, want %.15g", sz, i, j, b[i*ldb+j], x[i*ldb+j])
				}
			}
		}
	}
}

// BenchmarkGemmNT64 times the Cholesky update product of the block engine
// (b = 500 new columns against l = 3000 earlier ones).
func BenchmarkGemmNT64(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	m, n, k := 500, 500, 3000
	x, y, c := randSlice(rng, m*k), randSlice(rng, n*k), make([]float64, m*n)
	for i := 0; i < b.N; i++ {
		GemmNT64(m, n, k, -1, x, k, y, k, 1, c, n)
	}
	b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkTrsmRightLowerT times F21 = G21 F11^-T for a block of 500
// columns after 3000.
func BenchmarkTrsmRightLowerT(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	m, n := 500, 3000
	a := randSlice(rng, n*n)
	for j := 0; j < n; j++ {
		a[j*n+j] = float64(n)
	}
	x := randSlice(rng, m*n)
	w := make([]float64, m*n)
	for i := 0; i < b.N; i++ {
		copy(w, x)
		TrsmRightLowerT(m, n, a, n, w, n)
	}
	b.ReportMetric(float64(m*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func TestProductTN32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sz := range [][3]int{{1, 1, 1}, {7, 10, 70}, {300, 3, 2048}, {33, 12, 100}} {
		l, m, r := sz[0], sz[1], sz[2]
		ldh := r + 5
		b := make([]float32, l*m)
		h := make([]float32, l*ldh)
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		for i := range h {
			h[i] = float32(rng.NormFloat64())
		}
		p := make([]float32, m*r)
		ProductTN32(l, m, r, b, h, ldh, p, r)
		for q := 0; q < m; q++ {
			for i := 0; i < r; i++ {
				var s, abs float64
				for j := 0; j < l; j++ {
					v := float64(b[j*m+q]) * float64(h[j*ldh+i])
					s += v
					abs += math.Abs(v)
				}
				if d := math.Abs(float64(p[q*r+i]) - s); d > 1e-6*abs {
					t.Fatalf("%v: P[%d,%d] = %.8g, want %.8g", sz, q, i, p[q*r+i], s)
				}
			}
		}
	}
}
