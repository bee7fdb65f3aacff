package localnet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/scn2d/scn/internal/cfgerr"
	"github.com/scn2d/scn/internal/local"
)

// Whitening of the patches of local nodes (Geometry.Whiten), after Coates,
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
// (Bank.Whiten, C k^2 x C k^2 float32); it applies M f, a full k x k x C
// filter, so prediction, serving and the ONNX export (Conv with those
// weights) need nothing more. Per-patch normalisation (each patch's mean
// subtracted and divided by its deviation) is not folded: it is not
// linear in the patch.
//
// The patches are every patch of the images when there are at most
// WhitenSamples, else WhitenSamples of them drawn (image, then position,
// uniformly) from a random stream of the seed of its own, so that the
// filters drawn are those of the same fit without whitening. The sums run
// in float64 in a fixed order: the same bits whatever GOMAXPROCS is.

// WhitenSamples is the most patches a bank's whitening is estimated from
// (a variable for the tests of the drawn sample).
var WhitenSamples = 50000

// whitenStream is the random stream of the patches' sample.
const whitenStream = 0x5a3ca

// Sample is the sample of patches a bank's whitening is estimated from:
// every patch of the images (image-major, then position) when they are
// at most WhitenSamples, else WhitenSamples patches drawn (image, then
// position) from the seed's own random stream.
type Sample struct {
	spec       local.Spec
	k, ch      int
	rows, cols int
	w, pos, kk int   // the map's width, its positions, C k^2
	n, s       int   // the images, the patches sampled
	img, q     []int // patch i's image and position (nil: every patch)
	cmean, csd []float64
}

// NewSample plans the whitening sample of the patches of side k of n
// images of rows x cols x ch under geometry g, the planes' moments (cmean,
// csd) given, and draws its patches.
func NewSample(n, rows, cols, ch int, g *Geometry, k int, cmean, csd []float64, seed uint64) (*Sample, error) {
	spec := SpecOf(g, k)
	in := local.Shape{Rows: rows, Cols: cols, Chans: ch}
	if err := spec.Validate(in); err != nil {
		return nil, fmt.Errorf("%w: %v", cfgerr.ErrConfig, err)
	}
	if eps := g.WhitenEps; !(eps > 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("%w: whitening eps = %v, want a number > 0", cfgerr.ErrConfig, eps)
	}
	if k > rows || k > cols {
		return nil, fmt.Errorf("%w: whitening patches of %d x %d, larger than the images (%d x %d)", cfgerr.ErrConfig, k, k, rows, cols)
	}
	h, w := spec.MapSize(in)
	ws := &Sample{spec: spec, k: k, ch: ch, rows: rows, cols: cols, w: w, pos: h * w, kk: ch * k * k, n: n, cmean: cmean, csd: csd}
	total := float64(n) * float64(ws.pos)
	if total < float64(ws.kk+1) {
		return nil, fmt.Errorf("%w: whitening patches of %d values needs more than %d patches, the images give %.0f", cfgerr.ErrConfig, ws.kk, ws.kk, total)
	}
	ws.s = WhitenSamples
	if total <= float64(WhitenSamples) {
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
func (ws *Sample) patch(row []float64, pix []float32, q int) {
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

// Patches returns the sample's standardised patches of the images x (the
// whole training set, n images of rows x cols x ch), one row each.
func (ws *Sample) Patches(x []float32) []float64 {
	p := make([]float64, ws.s*ws.kk)
	d := ws.ch * ws.rows * ws.cols
	for i := 0; i < ws.s; i++ {
		img, q := i/ws.pos, i%ws.pos
		if ws.img != nil {
			img, q = ws.img[i], ws.q[i]
		}
		ws.patch(p[i*ws.kk:(i+1)*ws.kk], x[img*d:(img+1)*d], q)
	}
	return p
}

// WhitenPatches returns the whitening of the patches of side k of the n
// images x of rows x cols x ch under geometry g, the planes' moments
// (cmean, csd) given.
func WhitenPatches(x []float32, n, rows, cols, ch int, g *Geometry, k int, cmean, csd []float64, seed uint64) (*local.Whitening, error) {
	ws, err := NewSample(n, rows, cols, ch, g, k, cmean, csd, seed)
	if err != nil {
		return nil, err
	}
	return ws.Whitening(ws.Patches(x), g.WhitenEps)
}

// Whitening returns the whitening estimated from the sample's patches p
// (one row each, as Patches returns them; centred in place).
func (ws *Sample) Whitening(p []float64, eps float64) (*local.Whitening, error) {
	pw, err := local.Whiten(p, ws.s, ws.kk, ws.k, ws.cmean, ws.csd, eps)
	if err != nil {
		return nil, fmt.Errorf("scn: %w", err)
	}
	return pw, nil
}

// Gather collects the whitening samples of every filter size of a
// geometry from images read in order, batch by batch (a streamed fit's
// extra pass): the same patches, drawn from the same random stream, as
// WhitenPatches takes from the images in memory, so that the whitening is
// the same bits.
type Gather struct {
	samples []*Sample
	pats    [][]float64
	// byImage[b][first[b][i]:first[b][i+1]] are the sample rows of size b
	// that image i gives (when the sample is drawn, not every patch).
	byImage, first [][]int
	seen           int
	eps            float64
}

// NewGather plans the samples of every filter size of g on n images of
// rows x cols x ch, the planes' moments (cmean, csd) given.
func NewGather(n, rows, cols, ch int, g *Geometry, cmean, csd []float64, seed uint64) (*Gather, error) {
	ga := &Gather{samples: make([]*Sample, len(g.Sizes)), pats: make([][]float64, len(g.Sizes)),
		byImage: make([][]int, len(g.Sizes)), first: make([][]int, len(g.Sizes)), eps: g.WhitenEps}
	for b, k := range g.Sizes {
		ws, err := NewSample(n, rows, cols, ch, g, k, cmean, csd, seed)
		if err != nil {
			return nil, err
		}
		ga.samples[b], ga.pats[b] = ws, make([]float64, ws.s*ws.kk)
		if ws.img != nil {
			ga.byImage[b], ga.first[b] = groupByImage(ws.img, n)
		}
	}
	return ga, nil
}

// Add takes the patches of the next r images x.
func (ga *Gather) Add(x []float32, r int) {
	if len(ga.samples) == 0 {
		return
	}
	s0 := ga.samples[0]
	d := s0.ch * s0.rows * s0.cols
	for i := 0; i < r; i++ {
		img, pix := ga.seen+i, x[i*d:(i+1)*d]
		for b, ws := range ga.samples {
			p, kk := ga.pats[b], ws.kk
			if ws.img == nil {
				for q := 0; q < ws.pos; q++ {
					j := img*ws.pos + q
					ws.patch(p[j*kk:(j+1)*kk], pix, q)
				}
				continue
			}
			for _, j := range ga.byImage[b][ga.first[b][img]:ga.first[b][img+1]] {
				ws.patch(p[j*kk:(j+1)*kk], pix, ws.q[j])
			}
		}
	}
	ga.seen += r
}

// Whitenings returns the whitening of each filter size (in the order of
// the geometry's Sizes) from the patches added.
func (ga *Gather) Whitenings() ([]*local.Whitening, error) {
	out := make([]*local.Whitening, len(ga.samples))
	for b, ws := range ga.samples {
		var err error
		if out[b], err = ws.Whitening(ga.pats[b], ga.eps); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// groupByImage returns the indices of img grouped by their value (a
// counting sort, stable): the indices whose image is i are
// order[first[i]:first[i+1]].
func groupByImage(img []int, n int) (order, first []int) {
	first = make([]int, n+1)
	for _, i := range img {
		first[i+1]++
	}
	for i := 0; i < n; i++ {
		first[i+1] += first[i]
	}
	next := slices.Clone(first[:n])
	order = make([]int, len(img))
	for j, i := range img {
		order[next[i]] = j
		next[i]++
	}
	return order, first
}
