package scn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/par"
	"gonum.org/v1/gonum/mat"
)

// Whitening of the patches of local nodes (Local.Whiten), after Coates,
// Lee & Ng, "An analysis of single-layer networks in unsupervised feature
// learning" (AISTATS 2011).
//
// For each filter size k, the fit samples patches of k x k x C values from
// the training images, as the filters see them (zero-padded by the
// geometry's padding, at the positions of its stride; the planes
// standardised by their means m_c and deviations s_c over the images, p_s
// = S^-1 (p - m) for a patch p as read, S the diagonal of each value's
// plane's s_c), and forms their mean mu and covariance Sigma = V D V^T.
// The ZCA whitening W = V (D + eps I)^-1/2 V^T maps a patch to W (p_s -
// mu), whose covariance is V D (D + eps)^-1 V^T: the identity along the
// directions of variance well above eps.
//
// A filter f (drawn as without whitening: standard normal, scaled to norm
// lambda, and a bias b uniform on [-lambda/2, lambda/2]) applied to the
// whitened patch gives
//
//	f^T W (S^-1 (p - m) - mu) + b = (S^-1 W f)^T p + b - f^T W (S^-1 m + mu),
//
// (W is symmetric), the filter M f with M = S^-1 W applied to the patch
// as read, with the bias b - f^T c, c = W (S^-1 m + mu). The model stores
// f (for a 2D learner still the separable u v^T times w: 2k + C numbers,
// drawn in the whitened space), the bias folded, and M once per bank
// (LocalBank.Whiten, C k^2 x C k^2 float32); it applies M f, a full k x k
// x C filter, so prediction, serving and the ONNX export (Conv with those
// weights) need nothing more. Per-patch normalisation (each patch's mean
// subtracted and divided by its deviation) is not folded: it is not
// linear in the patch.
//
// The patches are every patch of the images when there are at most
// whitenSamples, else whitenSamples of them drawn (image, then position,
// uniformly) from a random stream of the seed of its own, so that the
// filters drawn are those of the same fit without whitening. The sums run
// in float64 in a fixed order: the same bits whatever GOMAXPROCS is.

// whitenSamples is the most patches a bank's whitening is estimated from
// (a variable for the tests of the drawn sample).
var whitenSamples = 50000

// whitenStream is the random stream of the patches' sample.
const whitenStream = 0x5a3ca

// patchWhitening is the whitening of the patches of one filter size.
type patchWhitening struct {
	kk      int       // C k^2
	W       []float64 // kk x kk, symmetric
	Mu      []float64 // the standardised patches' mean
	M       []float64 // S^-1 W, kk x kk: the raw weights of a filter f are M f
	C       []float64 // W (S^-1 m + mu): f^T C comes off the bias
	Eig     []float64 // the covariance's eigenvalues, ascending
	Samples int
}

// whitenSample is the sample of patches a bank's whitening is estimated
// from: every patch of the images (image-major, then position) when they
// are at most whitenSamples, else whitenSamples patches drawn (image, then
// position) from the seed's own random stream.
type whitenSample struct {
	spec       local.Spec
	k, ch      int
	rows, cols int
	w, pos, kk int   // the map's width, its positions, C k^2
	n, s       int   // the images, the patches sampled
	img, q     []int // patch i's image and position (nil: every patch)
	cmean, csd []float64
}

// newWhitenSample plans the whitening sample of the patches of side k of n
// images of rows x cols x ch under geometry g, the planes' moments (cmean,
// csd) given, and draws its patches.
func newWhitenSample(n, rows, cols, ch int, g *Local, k int, cmean, csd []float64, seed uint64) (*whitenSample, error) {
	spec := g.spec(k)
	in := local.Shape{Rows: rows, Cols: cols, Chans: ch}
	if err := spec.Validate(in); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if eps := g.WhitenEps; !(eps > 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("%w: whitening eps = %v, want a number > 0", ErrConfig, eps)
	}
	if k > rows || k > cols {
		return nil, fmt.Errorf("%w: whitening patches of %d x %d, larger than the images (%d x %d)", ErrConfig, k, k, rows, cols)
	}
	h, w := spec.MapSize(in)
	ws := &whitenSample{spec: spec, k: k, ch: ch, rows: rows, cols: cols, w: w, pos: h * w, kk: ch * k * k, n: n, cmean: cmean, csd: csd}
	total := float64(n) * float64(ws.pos)
	if total < float64(ws.kk+1) {
		return nil, fmt.Errorf("%w: whitening patches of %d values needs more than %d patches, the images give %.0f", ErrConfig, ws.kk, ws.kk, total)
	}
	ws.s = whitenSamples
	if total <= float64(whitenSamples) {
		ws.s = int(total)
		return ws, nil
	}
	rng := rand.New(rand.NewPCG(seed, whitenStream))
	ws.img, ws.q = make([]int, ws.s), make([]int, ws.s)
	for i := range ws.s {
		ws.img[i], ws.q[i] = rng.IntN(n), rng.IntN(ws.pos)
	}
	return ws, nil
}

// patch writes into row the standardised patch at position q of the image
// pix (its planes one after another).
func (ws *whitenSample) patch(row []float64, pix []float32, q int) {
	k, spec, plane := ws.k, ws.spec, ws.rows*ws.cols
	pr, pc := q/ws.w, q%ws.w
	for c := 0; c < ws.ch; c++ {
		for a := 0; a < k; a++ {
			rr := pr*spec.Stride - spec.Pad + a
			for b := 0; b < k; b++ {
				cc := pc*spec.Stride - spec.Pad + b
				v := 0.0
				if rr >= 0 && rr < ws.rows && cc >= 0 && cc < ws.cols {
					v = float64(pix[c*plane+rr*ws.cols+cc])
				}
				row[(c*k+a)*k+b] = (v - ws.cmean[c]) / ws.csd[c]
			}
		}
	}
}

// patches returns the sample's standardised patches of the images x (the
// whole training set), one row each.
func (ws *whitenSample) patches(x Images) []float64 {
	p := make([]float64, ws.s*ws.kk)
	d := x.Dim()
	for i := 0; i < ws.s; i++ {
		img, q := i/ws.pos, i%ws.pos
		if ws.img != nil {
			img, q = ws.img[i], ws.q[i]
		}
		ws.patch(p[i*ws.kk:(i+1)*ws.kk], x.Pix[img*d:(img+1)*d], q)
	}
	return p
}

// whitenPatches returns the whitening of the patches of side k of the
// images x under geometry g, the planes' moments (cmean, csd) given.
func whitenPatches(x Images, g *Local, k int, cmean, csd []float64, seed uint64) (*patchWhitening, error) {
	ws, err := newWhitenSample(x.Len(), x.Rows, x.Cols, x.Chans(), g, k, cmean, csd, seed)
	if err != nil {
		return nil, err
	}
	return ws.whitening(ws.patches(x), g.WhitenEps)
}

// whitening returns the whitening estimated from the sample's patches p
// (one row each, as patches returns them).
func (ws *whitenSample) whitening(p []float64, eps float64) (*patchWhitening, error) {
	s, kk, k := ws.s, ws.kk, ws.k
	cmean, csd := ws.cmean, ws.csd
	pw := &patchWhitening{kk: kk, Mu: make([]float64, kk), Samples: s}
	for i := 0; i < s; i++ {
		for t, v := range p[i*kk : (i+1)*kk] {
			pw.Mu[t] += v
		}
	}
	for t := range pw.Mu {
		pw.Mu[t] /= float64(s)
	}
	for i := 0; i < s; i++ {
		row := p[i*kk : (i+1)*kk]
		for t := range row {
			row[t] -= pw.Mu[t]
		}
	}
	// The covariance, entry (t, u) for u >= t summed over the patches in
	// order, blocks of rows in parallel (one read of the sample per block).
	cov := make([]float64, kk*kk)
	par.Chunks(kk, 8, func(_, lo, hi int) {
		for i := 0; i < s; i++ {
			row := p[i*kk : (i+1)*kk]
			for t := lo; t < hi; t++ {
				a, ct := row[t], cov[t*kk:(t+1)*kk]
				for u := t; u < kk; u++ {
					ct[u] += a * row[u]
				}
			}
		}
	})
	sym := mat.NewSymDense(kk, nil)
	for t := 0; t < kk; t++ {
		for u := t; u < kk; u++ {
			v := cov[t*kk+u] / float64(s)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("scn: whitening: the patches' covariance is not finite (images with NaN or infinite pixels?)")
			}
			sym.SetSym(t, u, v)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(sym, true) {
		return nil, fmt.Errorf("scn: whitening: the eigendecomposition of the patches' covariance (%d x %d) failed", kk, kk)
	}
	pw.Eig = es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	scale := make([]float64, kk)
	for j, e := range pw.Eig {
		scale[j] = 1 / math.Sqrt(max(e, 0)+eps)
	}
	pw.W = make([]float64, kk*kk)
	for t := 0; t < kk; t++ {
		for u := t; u < kk; u++ {
			var sum float64
			for j := 0; j < kk; j++ {
				sum += v.At(t, j) * scale[j] * v.At(u, j)
			}
			pw.W[t*kk+u], pw.W[u*kk+t] = sum, sum
		}
	}
	pw.M = make([]float64, kk*kk)
	off := make([]float64, kk) // S^-1 m + mu
	for t := 0; t < kk; t++ {
		c := t / (k * k)
		for u := 0; u < kk; u++ {
			pw.M[t*kk+u] = pw.W[t*kk+u] / csd[c]
		}
		off[t] = cmean[c]/csd[c] + pw.Mu[t]
	}
	pw.C = make([]float64, kk)
	for t := 0; t < kk; t++ {
		var sum float64
		for u, o := range off {
			sum += pw.W[t*kk+u] * o
		}
		pw.C[t] = sum
	}
	return pw, nil
}

// matrix32 returns M in float32, the bank's LocalBank.Whiten.
func (pw *patchWhitening) matrix32() []float32 {
	out := make([]float32, len(pw.M))
	for i, v := range pw.M {
		out[i] = float32(v)
	}
	return out
}

// foldBias returns the bias b of the filter whose whitened-space weights
// are f (C k^2) applied to the patches as read: b - f^T C.
func (pw *patchWhitening) foldBias(f []float32, b float64) float64 {
	for t, v := range f {
		b -= float64(v) * pw.C[t]
	}
	return b
}
