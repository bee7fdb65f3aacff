package direct

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDirectPooledFeatures checks the pooled features against a direct
// loop, colour images of odd sizes.
func TestDirectPooledFeatures(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := Images{Rows: 7, Cols: 9, Channels: 3, Pix: make([]float32, 5*3*7*9)}
	for i := range x.Pix {
		x.Pix[i] = float32(rng.Float64())
	}
	for _, pool := range []int{1, 2, 3} {
		pr, pc := 7/pool, 9/pool
		d := Dim(3, 7, 9, pool)
		if d != 3*pr*pc {
			t.Fatalf("pool %d: %d features", pool, d)
		}
		f := Rows(x, pool)
		for i := 0; i < 5; i++ {
			for ch := 0; ch < 3; ch++ {
				for a := 0; a < pr; a++ {
					for b := 0; b < pc; b++ {
						var s float64
						for y := 0; y < pool; y++ {
							for z := 0; z < pool; z++ {
								s += float64(x.Pix[i*189+ch*63+(a*pool+y)*9+b*pool+z])
							}
						}
						want := s / float64(pool*pool)
						if got := f.At(i, (ch*pr+a)*pc+b); math.Abs(got-want) > 1e-12 {
							t.Fatalf("pool %d image %d feature (%d,%d,%d): %v, want %v", pool, i, ch, a, b, got, want)
						}
					}
				}
			}
		}
	}
	if p := Plan(60000, 3, 64, 64); Dim(3, 64, 64, p) > MaxFeatures || p < 2 {
		t.Errorf("plan for 60000 colour 64 x 64 images: pool %d", p)
	}
	if p := Plan(200, 1, 112, 92); p != 1 {
		t.Errorf("plan for 200 faces: pool %d, want 1 (dual)", p)
	}
	if p := Plan(60000, 1, 28, 28); p != 2 || Cap(54000, Dim(1, 28, 28, p)) != 412 {
		t.Errorf("plan for MNIST: pool %d, nodes scored up to %d", p, Cap(54000, Dim(1, 28, 28, p)))
	}
	if p := Plan(5000, 1, 28, 28); p != 1 {
		t.Errorf("plan for 5000 digits: pool %d, want 1", p)
	}
}

// TestPixelKernelAndT: the strip-by-strip kernels agree with the
// products of the features formed whole (F F^T and F^T C), on images
// wider than a strip; DualCoef solves (K + alpha I) A = T.
func TestPixelKernelAndT(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, mm = 6, 2
	x := Images{Rows: 50, Cols: 50, Pix: make([]float32, n*2500)} // 2500 > pixelStrip
	for i := range x.Pix {
		x.Pix[i] = float32(rng.Float64())
	}
	f := Rows(x, 1)
	kk := make([]float64, n*n)
	PixelKernel(x, x, kk)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for q := 0; q < 2500; q++ {
				s += f.At(i, q) * f.At(j, q)
			}
			if math.Abs(kk[i*n+j]-s) > 1e-9*math.Abs(s) {
				t.Fatalf("K[%d,%d] = %v, want %v", i, j, kk[i*n+j], s)
			}
		}
	}
	c := make([]float64, n*mm)
	for i := range c {
		c[i] = rng.NormFloat64()
	}
	ft := PixelT(x, c, mm)
	for q := 0; q < 2500; q += 97 {
		for o := 0; o < mm; o++ {
			var s float64
			for i := 0; i < n; i++ {
				s += f.At(i, q) * c[i*mm+o]
			}
			if math.Abs(ft[q*mm+o]-s) > 1e-9*(1+math.Abs(s)) {
				t.Fatalf("(F^T C)[%d,%d] = %v, want %v", q, o, ft[q*mm+o], s)
			}
		}
	}
	const alpha = 0.5
	a, err := DualCoef(kk, n, c, mm, alpha)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		for o := 0; o < mm; o++ {
			v := alpha * a[i*mm+o]
			for j := 0; j < n; j++ {
				v += kk[i*n+j] * a[j*mm+o]
			}
			if math.Abs(v-c[i*mm+o]) > 1e-8 {
				t.Fatalf("(K + alpha I) A row %d output %d = %v, want %v", i, o, v, c[i*mm+o])
			}
		}
	}
}
