package scn

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/fixtures"
	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/localnet"
)

// whitenConfig returns localConfig(k) with whitened patches.
func whitenConfig(k Kind) Config {
	c := localConfig(k)
	c.Local.Whiten, c.Local.WhitenEps = true, 0.1
	return c
}

// noiseImages returns n images of i.i.d. uniform pixels on [0, 2)
// (plane c shifted by c).
func noiseImages(n, rows, cols, ch int, seed uint64) Images {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := Images{Rows: rows, Cols: cols, Channels: ch, Pix: make([]float32, n*ch*rows*cols)}
	for i := range x.Pix {
		c := (i / (rows * cols)) % ch
		x.Pix[i] = float32(2*rng.Float64() + float64(c))
	}
	return x
}

// patchesOf returns every patch the filters of spec see in x
// (fixtures.Patches).
func patchesOf(x Images, spec local.Spec) [][]float64 {
	return fixtures.Patches(x.Pix, x.Len(), x.Chans(), x.Rows, x.Cols, spec.Size, spec.Stride, spec.Pad)
}

// TestLocalWhitenFolded: a bank whose whitening is folded into its
// filters (weights M f, bias folded) gives, to 1e-5, the pooled outputs of
// the explicit loop that whitens every patch, W (S^-1 (p - m) - mu), and
// applies the filter f and the bias b to it: grey and colour, 2D
// (separable) and 1D (full) filters, odd sizes, padding, stride 2.
func TestLocalWhitenFolded(t *testing.T) {
	for _, ch := range []int{1, 3} {
		x := noiseImages(6, 9, 11, ch, 5)
		for _, in := range []InputMap{Matrix, Vector} {
			for _, geo := range []Local{
				{Sizes: []int{3}, Stride: 1, Pad: PadSame, Pool: 2, Pooling: PoolAvg, TwoSided: true},
				{Sizes: []int{5}, Stride: 2, Pad: 1, Pool: 3, Pooling: PoolAvgMax, TwoSided: true},
			} {
				geo.Filters, geo.Whiten, geo.WhitenEps = 4, true, 0.1
				k := geo.Sizes[0]
				cmean, csd := planeMoments(x)
				pw, err := whitenPatches(x, &geo, k, cmean, csd, 7)
				if err != nil {
					t.Fatal(err)
				}
				nm := filterMap(in, k, ch)
				np, kk := nm.Size(), ch*k*k
				rng := rand.New(rand.NewPCG(11, 12))
				bank := LocalBank{Size: k, Params: make([]float32, geo.Filters*np), Whiten: pw.Matrix32()}
				raw := make([]float64, geo.Filters)
				for j := range raw {
					for i := j * np; i < (j+1)*np; i++ {
						bank.Params[i] = float32(rng.NormFloat64())
					}
					raw[j] = rng.Float64() - 0.5
					f := make([]float32, kk)
					nm.Weight(bank.Params[j*np:(j+1)*np], f)
					bank.Bias = append(bank.Bias, float32(pw.FoldBias(f, raw[j])))
				}
				ly := mapsOf(in, ReLU).Bank(&geo, bank, x.Rows, x.Cols, ch)
				got := make([]float32, x.Len()*ly.Outputs())
				if err := ly.Apply(x.Pix, x.Len(), got, ly.Outputs(), 0); err != nil {
					t.Fatal(err)
				}
				// The reference: every patch whitened explicitly.
				spec := localnet.SpecOf(&geo, k)
				h, w := spec.MapSize(local.Shape{Rows: x.Rows, Cols: x.Cols, Chans: ch})
				patches := patchesOf(x, spec)
				per := spec.PerFilter()
				p := spec.Pool
				for j := 0; j < geo.Filters; j++ {
					f := make([]float32, kk)
					nm.Weight(bank.Params[j*np:(j+1)*np], f)
					for i := 0; i < x.Len(); i++ {
						z := make([]float64, h*w)
						for q := range z {
							ps := patches[i*h*w+q]
							s := make([]float64, kk)
							for u := range s {
								c := u / (k * k)
								s[u] = (ps[u]-cmean[c])/csd[c] - pw.Mu[u]
							}
							z[q] = raw[j]
							for tt := 0; tt < kk; tt++ {
								var wq float64
								for u := range s {
									wq += pw.W[tt*kk+u] * s[u]
								}
								z[q] += float64(f[tt]) * wq
							}
						}
						for side := 0; side < 2; side++ {
							for kind := 0; kind < 2; kind++ {
								if kind == 1 && geo.Pooling != PoolAvgMax {
									continue
								}
								for gi := 0; gi < p; gi++ {
									r0, r1 := local.Region(gi, p, h)
									for gj := 0; gj < p; gj++ {
										c0, c1 := local.Region(gj, p, w)
										sum, mx := 0.0, 0.0
										for r := r0; r < r1; r++ {
											for c := c0; c < c1; c++ {
												v := z[r*w+c]
												if side == 1 {
													v = -v
												}
												v = max(v, 0)
												sum += v
												mx = max(mx, v)
											}
										}
										want := sum / float64((r1-r0)*(c1-c0))
										if kind == 1 {
											want = mx
										}
										kinds := 1
										if geo.Pooling == PoolAvgMax {
											kinds = 2
										}
										idx := i*ly.Outputs() + j*per + (side*kinds+kind)*p*p + gi*p + gj
										if d := math.Abs(float64(got[idx]) - want); d > 1e-5*max(1, math.Abs(want)) {
											t.Fatalf("%d planes, %v, %v: filter %d image %d side %d kind %d region %d,%d: %v, the explicit whitening gives %v",
												ch, in, geo.String(), j, i, side, kind, gi, gj, got[idx], want)
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestLocalWhitenFits: whitened fits of every learner write the same
// bytes at GOMAXPROCS 1 and 2, read back to the same bytes and
// predictions, record the whitening in the header and each bank, learn
// the hue task, and draw the filters of the fit without whitening.
func TestLocalWhitenFits(t *testing.T) {
	p, _ := hueProblem(t, 120, 22)
	test, _ := hueProblem(t, 60, 23)
	for _, k := range Kinds() {
		c := whitenConfig(k)
		var files [][]byte
		for _, procs := range []int{1, 2} {
			old := runtime.GOMAXPROCS(procs)
			m := fitT(t, c, p)
			runtime.GOMAXPROCS(old)
			file, back := roundTrip(t, m)
			files = append(files, file)
			if file[8] != 3 || !bytes.Contains(file, []byte(`"whiten":true,"whiten_eps":0.1`)) {
				t.Fatalf("%v: file version %d, or no whitening in the header", k, file[8])
			}
			for i, b := range back.Local.Banks {
				kk := 3 * b.Size * b.Size
				if len(b.Whiten) != kk*kk || !slices.Equal(b.Whiten, m.Local.Banks[i].Whiten) {
					t.Fatalf("%v: bank %d's whitening matrix did not survive the file", k, i)
				}
			}
			y, err := m.Predict(test.X)
			if err != nil {
				t.Fatal(err)
			}
			yb, _ := back.Predict(test.X)
			if !slices.Equal(y, yb) {
				t.Fatalf("%v: predictions of the read model differ", k)
			}
			if acc, _ := m.Accuracy(test.X, ArgMax(test.T, test.M)); acc < 0.8 {
				t.Errorf("%v: whitened test accuracy %.2f on the hue task", k, acc)
			}
			in, err := ReadInfo(bytes.NewReader(file))
			if err != nil || in.ParamCount() != m.ParamCount() || in.FileBytes != int64(len(file)) || !in.Local.Whiten {
				t.Errorf("%v: Info (%v) says %d parameters and %d bytes, the model %d and %d", k, err, in.ParamCount(), in.FileBytes, m.ParamCount(), len(file))
			}
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%v: whitened fit differs between GOMAXPROCS 1 and 2", k)
		}
		if k == RVFL2D {
			// The same random stream: colour u and v are drawn as without
			// whitening (whose planes' scales go to w alone).
			plain := fitT(t, localConfig(k), p)
			m := fitT(t, c, p)
			for i, b := range m.Local.Banks {
				np, pb := 2*b.Size+3, plain.Local.Banks[i]
				if pb.Whiten != nil || b.Filters() != pb.Filters() {
					t.Fatalf("bank %d: a fit without whitening holds a whitening matrix, or other filters", i)
				}
				for j := 0; j < b.Filters(); j++ {
					if !slices.Equal(b.Params[j*np:j*np+2*b.Size], pb.Params[j*np:j*np+2*b.Size]) {
						t.Fatalf("bank %d filter %d: u, v differ from the fit without whitening", i, j)
					}
				}
			}
		}
	}
}

// TestLocalWhitenBadInput: whitening patches larger than the images, an
// eps <= 0, NaN or infinite, an eps without whitening and a streamed fit
// are refused with clear errors; a file whose whitening matrix is not
// finite or whose eps is bad is refused when read.
func TestLocalWhitenBadInput(t *testing.T) {
	p, _ := hueProblem(t, 30, 25) // 12 x 10 images
	cases := []struct {
		edit func(*Local)
		want string
	}{
		{func(l *Local) { l.Sizes = []int{11} }, "whitening patches of 11 x 11, larger than the images"},
		{func(l *Local) { l.WhitenEps = 0 }, "whitening eps = 0"},
		{func(l *Local) { l.WhitenEps = -1 }, "whitening eps = -1"},
		{func(l *Local) { l.WhitenEps = math.NaN() }, "whitening eps = NaN"},
		{func(l *Local) { l.WhitenEps = math.Inf(1) }, "whitening eps = +Inf"},
		{func(l *Local) { l.Whiten = false }, "without whitening"},
	}
	for _, c := range cases {
		cfg := whitenConfig(RVFL2D)
		c.edit(cfg.Local)
		_, err := cfg.Fit(context.Background(), p, nil)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one saying %q", err, c.want)
		}
	}
	// Too few patches for the covariance.
	tiny := Images{Rows: 3, Cols: 3, Channels: 3, Pix: make([]float32, 27)}
	geo := Local{Sizes: []int{3}, Filters: 1, Stride: 1, Pad: 0, Pool: 1, Whiten: true, WhitenEps: 0.1}
	if _, err := whitenPatches(tiny, &geo, 3, []float64{0, 0, 0}, []float64{1, 1, 1}, 1); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "needs more than 27 patches") {
		t.Errorf("one patch of 27 values: %v", err)
	}
	// Streamed: the same checks (TestLocalStreamIsTheFit has the fits).
	bigEps := whitenConfig(RVFL2D)
	bigEps.Local.WhitenEps = math.Inf(1)
	if _, err := bigEps.FitStream(context.Background(), ProblemSource(p, 10), nil); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "eps") {
		t.Errorf("streamed whitening with eps = +Inf: %v", err)
	}
	// Files.
	m := fitT(t, whitenConfig(RVFL2D), p)
	file, _ := roundTrip(t, m)
	bad := func(name string, edit func([]byte) []byte, want string) {
		b := edit(bytes.Clone(file))
		fixCRC(b)
		if _, err := Read(bytes.NewReader(b)); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, want)
		}
	}
	bad("eps", func(b []byte) []byte {
		return bytes.Replace(b, []byte(`"whiten_eps":0.1`), []byte(`"whiten_eps":-1`), 1)
	}, "whitening eps = -1")
	bad("NaN matrix", func(b []byte) []byte {
		nan := math.Float32bits(float32(math.NaN()))
		off := len(b) - 4 - 4 // the last value of the last matrix
		b[off], b[off+1], b[off+2], b[off+3] = byte(nan), byte(nan>>8), byte(nan>>16), byte(nan>>24)
		return b
	}, "non-finite")
}

// planeMoments returns the mean and standard deviation of each plane's
// pixels over the images (a deviation of 0 is taken as 1; local.Moments).
func planeMoments(x Images) (mean, sd []float64) {
	return localnet.PlaneMoments(x.Pix, x.Len(), x.Chans(), x.Rows*x.Cols)
}
