package scn

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"

	"github.com/scn2d/scn/internal/atomicfile"
	"github.com/scn2d/scn/internal/bigmem"
	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
	"gonum.org/v1/gonum/mat"
)

// Stats are the sufficient statistics of a least-squares output layer: for
// the hidden nodes of a recipe model, the sums over a data set's images of
// G = H^T H (L x L), H^T T (L x m) and T^T T (m x m), with the number of
// images and of images per class. Output weights follow from them alone
// (Solve), and the statistics of two data sets for the same nodes add up
// (Merge): the data can be summed where it lives, shard by shard or
// machine by machine, and a model can learn from new images without its
// old ones (scn update). For the random learners (RVFL, 2DRVFL) a solve of
// merged statistics is the model a fit from scratch on all the images with
// the same nodes gives; for the supervised ones the nodes stay those the
// fit chose, and only the output weights are re-solved.
type Stats struct {
	// Recipe is the model whose hidden nodes the sums are of (its kind,
	// activation, image shape, parameters, biases, configuration and
	// preprocessing; its output weights are not used).
	Recipe *Model
	// Classes names the outputs of a classification (nil for
	// regression); ClassCounts counts the images of each.
	Classes     []string
	ClassCounts []int
	N           int       // images summed
	M           int       // outputs m
	G           []float64 // H^T H, L x L row-major
	HT          []float64 // H^T T, L x m row-major
	TT          []float64 // T^T T, m x m row-major
	// Factor, if not nil, is a Cholesky factor of G + a ridge term (of
	// these images' G or an earlier one), which Model.Update uses instead
	// of factoring G: scn train --stats-out stores it (Factorize).
	Factor *Factor

	loadG func() ([]float64, error) // reads G when OpenStats left it unread
}

// ErrStats is wrapped by every error about statistics that cannot be used
// together or read.
var ErrStats = errors.New("scn: statistics")

// Stats returns the statistics of p for m's hidden nodes, summed over
// chunks of 2048 images: memory grows with L^2 and L x 2048, not with N.
func (m *Model) Stats(p Problem) (*Stats, error) {
	if err := m.refuseLocal("statistics for updates"); err != nil {
		return nil, err
	}
	s, _, err := m.sums(p, true, false)
	return s, err
}

// sums returns the statistics of p for m's hidden nodes, G only if withG
// (nil otherwise); if keep, also the float64 hidden outputs of the
// images, one chunk of statsChunk images (node-major, L x statsChunk, the
// last one partly filled) after another.
func (m *Model) sums(p Problem, withG, keep bool) (*Stats, []lsq.Chunk, error) {
	if m.IsDeep() {
		return nil, nil, fmt.Errorf("%w: sufficient statistics (the recipe holds one layer)", ErrDeep)
	}
	if err := p.check(); err != nil {
		return nil, nil, err
	}
	if err := m.checkInput(p.X); err != nil {
		return nil, nil, err
	}
	lh := m.Nodes()
	l, mm, n := lh+m.DirectDim(), p.M, p.X.Len()
	var fd []float64 // direct features, D x take
	s := &Stats{Recipe: m.recipe(), N: n, M: mm, HT: make([]float64, l*mm), TT: make([]float64, mm*mm)}
	if withG {
		s.G = bigmem.Float64s(l * l)
	}
	if p.Classes != nil {
		s.Classes = slices.Clone(p.Classes)
		s.ClassCounts = make([]int, len(p.Classes))
		for _, c := range ArgMax(p.T, mm) {
			s.ClassCounts[c]++
		}
	}
	// The hidden outputs of statsChunk images at a time (node-major,
	// float64) and their targets (output-major), then the float64 products
	// G += H_c^T H_c (its lower triangle, gramLower), H^T T += H_c^T T_c
	// and T^T T += T_c^T T_c by the dense kernels (OpenBLAS's dgemm, or the
	// project's float64 kernel): a chunk of 2048 images keeps G's traffic
	// small beside the products, and the kernels' fixed chunks keep the
	// sums independent of the number of goroutines.
	cw := min(n, statsChunk)
	sw := m.imageWeights(p) // nil: every image weighs 1
	var kept []lsq.Chunk
	hn, tc := bigmem.Float64s(l*cw), make([]float64, mm*cw)
	filled := 0
	flush := func() {
		if filled == 0 {
			return
		}
		if withG {
			lsq.GramLower(l, filled, hn, cw, s.G)
		}
		linalg.GemmNT64(l, mm, filled, 1, hn, cw, tc, cw, 1, s.HT, mm)
		linalg.GemmNT64(mm, mm, filled, 1, tc, cw, tc, cw, 1, s.TT, mm)
		if keep {
			kept = append(kept, lsq.Chunk{H: hn, LD: cw, Rows: filled})
			hn = nil // the next chunk's buffer when it comes: no unused one after the last
		}
		filled = 0
	}
	forHidden(m, lh, p.X, func(lo, rows int, hb []float32) {
		for r0 := 0; r0 < rows; {
			take := min(rows-r0, cw-filled)
			if hn == nil {
				hn = bigmem.Float64s(l * cw)
			}
			for j := 0; j < lh; j++ {
				src, dst := hb[j*rows+r0:j*rows+r0+take], hn[j*cw+filled:]
				if sw != nil {
					// Weighted sums: each image's row scaled by sqrt(w_i).
					for i, v := range src {
						dst[i] = float64(v) * sw[lo+r0+i]
					}
					continue
				}
				for i, v := range src {
					dst[i] = float64(v)
				}
			}
			if l > lh {
				// The direct features after the hidden outputs.
				fd = grow(fd, (l-lh)*take)
				directFeatures(p.X, m.Direct.Pool, lo+r0, take, fd)
				for j := lh; j < l; j++ {
					copy(hn[j*cw+filled:j*cw+filled+take], fd[(j-lh)*take:(j-lh+1)*take])
				}
			}
			for r := 0; r < take; r++ {
				w := 1.0
				if sw != nil {
					w = sw[lo+r0+r]
				}
				for q := 0; q < mm; q++ {
					tc[q*cw+filled+r] = p.T[(lo+r0+r)*mm+q] * w
				}
			}
			filled += take
			r0 += take
			if filled == cw {
				flush()
			}
		}
	})
	flush()
	if withG {
		lsq.Symmetrize(s.G, l)
	}
	return s, kept, nil
}

// recipe returns a copy of m without its output weights' meaning: the
// hidden layer and how it was made.
func (m *Model) recipe() *Model {
	r := *m
	r.Selection, r.Budget = nil, nil
	return &r
}

// statsChunk is the images whose hidden outputs one product takes.
const statsChunk = 2048

// Nodes returns the number of hidden nodes L of the statistics.
//
// With direct links (Model.Direct) the statistics are those of [H F], the
// hidden outputs and the direct features, and Nodes counts both columns:
// L + D (see direct.go).
func (s *Stats) Nodes() int { return s.Recipe.Nodes() + s.Recipe.DirectDim() }

// sameRecipe reports the first field in which two recipes differ.
func sameRecipe(a, b *Model) error {
	switch {
	case a.Kind != b.Kind:
		return fmt.Errorf("%w: kind %v and %v", ErrStats, a.Kind, b.Kind)
	case a.Activation != b.Activation:
		return fmt.Errorf("%w: activation %v and %v", ErrStats, a.Activation, b.Activation)
	case a.Rows != b.Rows || a.Cols != b.Cols:
		return fmt.Errorf("%w: image size %d x %d and %d x %d", ErrStats, a.Rows, a.Cols, b.Rows, b.Cols)
	case a.Chans() != b.Chans():
		return fmt.Errorf("%w: channels %d and %d", ErrStats, a.Chans(), b.Chans())
	case a.Nodes() != b.Nodes():
		return fmt.Errorf("%w: %d and %d hidden nodes", ErrStats, a.Nodes(), b.Nodes())
	case directPool(a) != directPool(b):
		return fmt.Errorf("%w: direct links pooled by %d and %d (0: none)", ErrStats, directPool(a), directPool(b))
	case !slices.Equal(a.Params, b.Params):
		return fmt.Errorf("%w: the hidden nodes' parameters differ (statistics of another model's nodes)", ErrStats)
	case !slices.Equal(a.Bias, b.Bias):
		return fmt.Errorf("%w: the hidden nodes' biases differ (statistics of another model's nodes)", ErrStats)
	case a.Preprocessing != b.Preprocessing:
		return fmt.Errorf("%w: preprocessing %+v and %+v", ErrStats, a.Preprocessing, b.Preprocessing)
	case !sameClassWeights(a, b):
		return fmt.Errorf("%w: class weights %v and %v (statistics weighted differently)", ErrStats, a.ClassWeights, b.ClassWeights)
	}
	return nil
}

// WithClasses returns s with its outputs in the order of classes, which
// must hold every class of s: a class s has no image of gets zero target
// columns (the old images are no example of it).
func (s *Stats) WithClasses(classes []string) (*Stats, error) {
	if s.Classes == nil {
		return nil, fmt.Errorf("%w: regression statistics have no classes", ErrStats)
	}
	at := make([]int, len(s.Classes)) // new column of each old one
	for i, c := range s.Classes {
		at[i] = slices.Index(classes, c)
		if at[i] < 0 {
			return nil, fmt.Errorf("%w: class %q missing from the new class list", ErrStats, c)
		}
	}
	l, m, mn := s.Nodes(), s.M, len(classes)
	out := &Stats{Recipe: s.Recipe, N: s.N, M: mn, Classes: slices.Clone(classes), ClassCounts: make([]int, mn),
		G: s.G, HT: make([]float64, l*mn), TT: make([]float64, mn*mn), Factor: s.Factor, loadG: s.loadG}
	for i, c := range at {
		out.ClassCounts[c] = s.ClassCounts[i]
		for j := 0; j < l; j++ {
			out.HT[j*mn+c] = s.HT[j*m+i]
		}
		for k, d := range at {
			out.TT[c*mn+d] = s.TT[i*m+k]
		}
	}
	return out, nil
}

// Merge returns the statistics of the union of the two data sets: the same
// recipe is required (the first field that differs is named). Classes are
// matched by name; a class only one side has is added (s's order first),
// with zero target columns on the other side.
func (s *Stats) Merge(o *Stats) (*Stats, error) { return s.merge(o, true) }

// merge is Merge, with G's sum only if withG (nil otherwise).
func (s *Stats) merge(o *Stats, withG bool) (*Stats, error) {
	if err := sameRecipe(s.Recipe, o.Recipe); err != nil {
		return nil, err
	}
	if withG {
		for _, x := range []*Stats{s, o} {
			if _, err := x.gram(); err != nil {
				return nil, err
			}
		}
	}
	a, b := s, o
	if (s.Classes == nil) != (o.Classes == nil) {
		return nil, fmt.Errorf("%w: classification and regression statistics", ErrStats)
	}
	if s.Classes != nil {
		union := slices.Clone(s.Classes)
		for _, c := range o.Classes {
			if !slices.Contains(union, c) {
				union = append(union, c)
			}
		}
		var err error
		if a, err = s.WithClasses(union); err != nil {
			return nil, err
		}
		if b, err = o.WithClasses(union); err != nil {
			return nil, err
		}
	} else if s.M != o.M {
		return nil, fmt.Errorf("%w: %d and %d regression targets", ErrStats, s.M, o.M)
	}
	out := &Stats{Recipe: a.Recipe, N: a.N + b.N, M: a.M, Classes: a.Classes,
		HT: lsq.AddVec(a.HT, b.HT), TT: lsq.AddVec(a.TT, b.TT)}
	if withG {
		out.G = lsq.AddVec(a.G, b.G)
	}
	// A factor of either side's G preconditions an update of the union
	// (a stale one: of fewer images); the larger side's is kept.
	out.Factor = a.Factor
	if b.Factor != nil && (a.Factor == nil || b.Factor.N > a.Factor.N) {
		out.Factor = b.Factor
	}
	if a.Classes != nil {
		out.ClassCounts = make([]int, len(a.Classes))
		for i := range out.ClassCounts {
			out.ClassCounts[i] = a.ClassCounts[i] + b.ClassCounts[i]
		}
	}
	return out, nil
}

// Solve returns the model of the recipe's nodes with the output weights the
// statistics give: (G + ridge I)^-1 H^T T for ridge > 0; for ridge 0 the
// pseudo-inverse of G (eigenvalues below L lambda_max eps dropped) times
// H^T T, which is pinv(H) T when H has full column rank (the normal
// equations square H's condition number: prefer a small ridge to none).
func (s *Stats) Solve(ridge float64) (*Model, error) {
	if !(ridge >= 0) || math.IsInf(ridge, 0) {
		return nil, fmt.Errorf("%w: ridge %v, want a finite value >= 0", ErrConfig, ridge)
	}
	if s.N == 0 {
		return nil, fmt.Errorf("%w: no image summed", ErrStats)
	}
	if _, err := s.gram(); err != nil {
		return nil, err
	}
	l, m := s.Nodes(), s.M
	var beta []float64
	if ridge > 0 {
		g := mat.NewSymDense(l, slices.Clone(s.G))
		var err error
		if beta, err = lsq.CholeskySolve(g, mat.NewDense(l, m, slices.Clone(s.HT)), ridge); err != nil {
			return nil, err
		}
	} else {
		var ok bool
		if beta, ok = lsq.EigenPinv(slices.Clone(s.G), s.HT, l, m); !ok {
			return nil, fmt.Errorf("%w: eigendecomposition of G failed", ErrStats)
		}
	}
	return s.model(beta, ridge, s.rmse(beta, ridge)), nil
}

// model returns the model of the recipe's nodes with output weights beta
// solved from s with the ridge term ridge, of training RMSE rmse.
func (s *Stats) model(beta []float64, ridge, rmse float64) *Model {
	r := *s.Recipe
	r.Beta, r.M = beta, s.M
	r.ClassWeights = s.Recipe.weightsFor(s.Classes)
	if r.Calibration != nil && r.Calibration.M != s.M {
		r.Calibration = nil // a map of fewer classes than the statistics have
	}
	if r.Direct != nil {
		lh := r.Nodes() * s.M
		r.Beta = beta[:lh:lh]
		r.Direct = &DirectLink{Pool: r.Direct.Pool, Beta: beta[lh:]}
	}
	r.Classes = slices.Clone(s.Classes)
	r.Config.Ridge = ridge
	r.Selection, r.Budget = nil, nil
	r.Summary = Summary{Nodes: s.Recipe.Nodes(), Samples: s.N, Stop: s.Recipe.Summary.Stop, TrainRMSE: rmse}
	return &r
}

// rmse is the training RMSE of output weights beta from the sums alone:
// ||T - H beta||^2 = tr(T^T T) - 2 tr(beta^T H^T T) + tr(beta^T G beta).
func (s *Stats) rmse(beta []float64, ridge float64) float64 {
	l, m := s.Nodes(), s.M
	var rss float64
	for q := 0; q < m; q++ {
		rss += s.TT[q*m+q]
	}
	gb := make([]float64, l*m)
	for i := 0; i < l; i++ {
		for k := 0; k < l; k++ {
			g := s.G[i*l+k]
			for q := 0; q < m; q++ {
				gb[i*m+q] += g * beta[k*m+q]
			}
		}
	}
	for i := range beta {
		rss += beta[i]*gb[i] - 2*beta[i]*s.HT[i]
	}
	return math.Sqrt(max(rss, 0) / float64(s.N*m))
}

// Statistics files, little-endian. Format version 1 (no factor):
//
//	offset  size  content
//	0       8     magic "2DSCNSTA"
//	8       4     format version (uint32), 1
//	12      4     header length H (uint32), at most 1 MiB
//	16      H     header: UTF-8 JSON (statsHeader): images, outputs, class
//	              names and counts, nodes, the recipe's length R
//	16+H    R     the recipe: a model file (its own magic and checksum)
//	        ...   G: L x L float64, H^T T: L x m float64, T^T T: m x m float64
//	end-4   4     CRC-32 (Castagnoli) of every byte before it
//
// so a file takes 20 + H + R + 8 (L^2 + L m + m^2) bytes. Version 2 (the
// statistics with their Factor, Stats.Factor not nil) checks each section
// on its own, so that a reader can skip G (OpenStats):
//
//	0       16+H+R  as version 1 (version 2; the header's "factor" holds
//	                the factor's images N_f and ridge)
//	        4       CRC-32 of the bytes before it
//	        8 L^2   G, then 4: CRC-32 of G's bytes
//	        8 (L m + m^2)  H^T T and T^T T, then 4: their CRC-32
//	        4 L (L+1)      the factor's lower triangle by rows (row i:
//	                       F[i][0..i]), then 4: its CRC-32
//
// 32 + H + R + 8 (L^2 + L m + m^2) + 4 L (L + 1) bytes. Statistics
// without a factor are written as version 1, as before.
const (
	statsMagic     = "2DSCNSTA"
	statsVersion   = 1
	statsVersionF  = 2
	statsMaxFormat = statsVersionF
	// maxStatsBytes bounds what a header may claim (2^36 bytes: L up to
	// about 90000), checked before anything is read into memory.
	maxStatsBytes = 1 << 36
)

type statsHeader struct {
	Samples     int           `json:"samples"`
	Outputs     int           `json:"outputs"`
	Nodes       int           `json:"nodes"`
	Classes     []string      `json:"classes,omitempty"`
	ClassCounts []int         `json:"class_counts,omitempty"`
	RecipeBytes int           `json:"recipe_bytes"`
	Factor      *factorHeader `json:"factor,omitempty"`
}

// factorHeader describes the factor section of a version 2 file.
type factorHeader struct {
	Samples int     `json:"samples"` // the images of the G it factors
	Ridge   float64 `json:"ridge"`
}

// Factor is a Cholesky factor kept with statistics (file format version
// 2), so that an update need not factor G (L^3 / 3 flops): F lower
// triangular with F F^T = G' + Ridge I for G' the G of N of the images
// the statistics summed. N = Stats.N means the statistics' own G (the
// factor Factorize gives and scn train --stats-out writes); fewer images
// mean an earlier G, before images were merged in (the factor Merge and
// an update carry on), which preconditions the next update all the same.
// F is held by panels of rows (about L^2 / 2 values, not L^2): Lower
// returns it whole.
type Factor struct {
	N     int
	Ridge float64
	l     int
	p     []float64 // F by row panels: lowerTri's packed layout
}

// Nodes returns the order L of the factor.
func (f *Factor) Nodes() int { return f.l }

// Lower returns F as an L x L row-major matrix (zeros above the
// diagonal).
func (f *Factor) Lower() []float64 {
	l := f.l
	out := make([]float64, l*l)
	t := f.tri()
	for i := 0; i < l; i++ {
		copy(out[i*l:i*l+i+1], t.Row(i))
	}
	return out
}

// tri returns the panels of F.
func (f *Factor) tri() lsq.LowerTri { return lsq.PackedTri(f.p, f.l) }

// factorOf returns the Factor of the lower triangle of the l x l
// row-major matrix g (what lies above the diagonal is not copied).
func factorOf(g []float64, l, n int, ridge float64) *Factor {
	f := &Factor{N: n, Ridge: ridge, l: l, p: bigmem.Float64s(lsq.PackedLen(l))}
	t := f.tri()
	for i := 0; i < l; i++ {
		copy(t.Row(i), g[i*l:i*l+i+1])
	}
	return f
}

// Factorize sets s.Factor to the Cholesky factor of G + ridge I (ridge >
// 0): the factor Model.Update would form, stored with the statistics.
func (s *Stats) Factorize(ridge float64) error {
	if !(ridge > 0) || math.IsInf(ridge, 0) {
		return fmt.Errorf("%w: ridge %v, want a finite value > 0", ErrConfig, ridge)
	}
	g, err := s.gram()
	if err != nil {
		return err
	}
	l := s.Nodes()
	f := bigmem.Float64s(l * l)
	copy(f, g)
	for i := 0; i < l; i++ {
		f[i*l+i] += ridge
	}
	if err := lsq.Cholesky(f, l, l, ridge); err != nil {
		return err
	}
	s.Factor = factorOf(f, l, s.N, ridge)
	return nil
}

// freshFactor reports whether s holds the factor of its own G + ridge I.
func (s *Stats) freshFactor(ridge float64) bool {
	f := s.Factor
	return f != nil && f.N == s.N && f.Ridge == ridge && f.l == s.Nodes()
}

// gram returns s.G, reading it first if OpenStats left it unread.
func (s *Stats) gram() ([]float64, error) {
	if s.G == nil && s.loadG != nil {
		g, err := s.loadG()
		if err != nil {
			return nil, err
		}
		s.G, s.loadG = g, nil
	}
	if s.G == nil {
		return nil, fmt.Errorf("%w: G was not read", ErrStats)
	}
	return s.G, nil
}

// checkFactor checks a factor against statistics of l nodes and n images.
func checkFactor(f *Factor, l, n int) error {
	switch {
	case f.N < 1 || f.N > n:
		return fmt.Errorf("%w: a factor of the G of %d images in statistics of %d", ErrStats, f.N, n)
	case !(f.Ridge >= 0) || math.IsInf(f.Ridge, 0):
		return fmt.Errorf("%w: a factor with ridge %v", ErrStats, f.Ridge)
	case f.l != l || len(f.p) != lsq.PackedLen(l):
		return fmt.Errorf("%w: a factor of order %d (%d values) for L = %d", ErrStats, f.l, len(f.p), l)
	}
	t := f.tri()
	for i := 0; i < l; i++ {
		if d := t.Row(i)[i]; !(d > 0) || math.IsInf(d, 0) {
			return fmt.Errorf("%w: the factor's diagonal element %d is %v", ErrStats, i, d)
		}
	}
	return checkFinite(f.p, "factor")
}

// WriteTo writes the statistics in their file format (version 2 with a
// factor, 1 without), the sums a block of statsIOBlock bytes at a time
// (the checksum is updated as they go), so that writing takes no second
// copy of G.
func (s *Stats) WriteTo(w io.Writer) (int64, error) {
	var rec bytes.Buffer
	if _, err := s.Recipe.WriteTo(&rec); err != nil {
		return 0, err
	}
	g, err := s.gram()
	if err != nil {
		return 0, err
	}
	l, m := s.Nodes(), s.M
	if len(g) != l*l || len(s.HT) != l*m || len(s.TT) != m*m {
		return 0, fmt.Errorf("%w: sums of %d, %d and %d values for L = %d, m = %d", ErrStats, len(g), len(s.HT), len(s.TT), l, m)
	}
	h := statsHeader{Samples: s.N, Outputs: m, Nodes: l, Classes: s.Classes, ClassCounts: s.ClassCounts, RecipeBytes: rec.Len()}
	version := uint32(statsVersion)
	if f := s.Factor; f != nil {
		if err := checkFactor(f, l, s.N); err != nil {
			return 0, err
		}
		version = statsVersionF
		h.Factor = &factorHeader{Samples: f.N, Ridge: f.Ridge}
	}
	hdr, err := json.Marshal(h)
	if err != nil {
		return 0, err
	}
	le := binary.LittleEndian
	cw := &crcWriter{w: w}
	head := append([]byte(statsMagic), le.AppendUint32(nil, version)...)
	head = le.AppendUint32(head, uint32(len(hdr)))
	head = append(append(head, hdr...), rec.Bytes()...)
	if _, err := cw.Write(head); err != nil {
		return cw.n, err
	}
	buf := make([]byte, 0, statsIOBlock)
	// seal writes the checksum of the section written since the last
	// (version 2) and starts the next one.
	seal := func() error {
		_, err := cw.w.Write(le.AppendUint32(nil, cw.sum))
		cw.n += 4
		cw.sum = 0
		return err
	}
	parts := [][]float64{g, s.HT, s.TT}
	for i, part := range parts {
		if version == statsVersionF && i < 2 {
			if err := seal(); err != nil {
				return cw.n, err
			}
		}
		for len(part) > 0 {
			k := min(len(part), statsIOBlock/8)
			if _, err := cw.Write(appendFloat64s(buf[:0], part[:k])); err != nil {
				return cw.n, err
			}
			part = part[k:]
		}
	}
	if version == statsVersionF {
		if err := seal(); err != nil {
			return cw.n, err
		}
		buf = buf[:0]
		t := s.Factor.tri()
		for i := 0; i < l; i++ {
			row := t.Row(i)
			for len(row) > 0 {
				k := min(len(row), (cap(buf)-len(buf))/8)
				buf = appendFloat64s(buf, row[:k])
				row = row[k:]
				if len(buf) == cap(buf) {
					if _, err := cw.Write(buf); err != nil {
						return cw.n, err
					}
					buf = buf[:0]
				}
			}
		}
		if _, err := cw.Write(buf); err != nil {
			return cw.n, err
		}
	}
	n, err := w.Write(le.AppendUint32(nil, cw.sum))
	return cw.n + int64(n), err
}

// statsIOBlock is the bytes of sums a statistics file is written and read
// in at a time.
const statsIOBlock = 1 << 22

// crcWriter writes to w and keeps the CRC-32 (Castagnoli) and the count of
// the bytes written.
type crcWriter struct {
	w   io.Writer
	sum uint32
	n   int64
}

func (c *crcWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.sum = crc32.Update(c.sum, castagnoli, b[:n])
	c.n += int64(n)
	return n, err
}

// Save writes the statistics to path atomically (as Model.Save).
func (s *Stats) Save(path string) error {
	if err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := s.WriteTo(w)
		return err
	}); err != nil {
		return wrapErr("save "+path, err)
	}
	return nil
}

// LoadStats reads a statistics file written by Stats.Save. The file's size
// is checked against its header before the sums are allocated, and they
// are then read into place a block at a time.
func LoadStats(path string) (*Stats, error) { return loadStats(path, false) }

// OpenStats reads a statistics file as LoadStats does, except that the G
// of a file holding the factor of its own G (version 2, Stats.Factor with
// N = Stats.N) is not read: G stays nil until a method needs it (Merge,
// Solve, WriteTo, Factorize, and Model.Update when the factor does not
// serve), which then reads it from path and checks its checksum. An
// update with the stored factor (scn update without --stats-out) never
// reads G: the file's largest part.
func OpenStats(path string) (*Stats, error) { return loadStats(path, true) }

func loadStats(path string, lazy bool) (*Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scn: load statistics: %w", err)
	}
	defer f.Close()
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	var skip *gramAt
	if lazy && size >= 0 {
		skip = &gramAt{path: path, size: size}
	}
	s, err := readStats(f, size, skip)
	if err != nil {
		return nil, wrapErr(path, err)
	}
	return s, nil
}

// gramAt is where OpenStats left G unread: readStats fills in the offset
// and checksum, and loadG reads it from there.
type gramAt struct {
	path      string
	size, off int64
	l         int
	sum       uint32
}

// load reads G from the file, checking its checksum (and that the file
// still has the size it had).
func (a *gramAt) load() ([]float64, error) {
	f, err := os.Open(a.path)
	if err != nil {
		return nil, fmt.Errorf("scn: load statistics: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() != a.size {
		return nil, fmt.Errorf("%w: %s changed since it was opened", ErrStats, a.path)
	}
	g := bigmem.Float64s(a.l * a.l)
	sum, err := readFloats(io.NewSectionReader(f, a.off, 8*int64(len(g))), g, make([]byte, min(statsIOBlock, 8*len(g))), 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrStats, a.path, err)
	}
	if sum != a.sum {
		return nil, fmt.Errorf("%w: %s: checksum mismatch in G (corrupt file)", ErrStats, a.path)
	}
	if err := checkFinite(g, "statistics"); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrStats, a.path, err)
	}
	return g, nil
}

// readFloats fills dst from r a block (buf) at a time and returns the
// CRC-32 of the bytes read updated from sum.
func readFloats(r io.Reader, dst []float64, buf []byte, sum uint32) (uint32, error) {
	le := binary.LittleEndian
	for len(dst) > 0 {
		k := min(len(dst), len(buf)/8)
		b := buf[:8*k]
		if _, err := io.ReadFull(r, b); err != nil {
			return sum, err
		}
		sum = crc32.Update(sum, castagnoli, b)
		for i := range dst[:k] {
			dst[i] = math.Float64frombits(le.Uint64(b[8*i:]))
		}
		dst = dst[k:]
	}
	return sum, nil
}

// ReadStats reads statistics from r, checking the magic, version, header,
// every size against the header before reading it, the embedded recipe and
// the checksums.
func ReadStats(r io.Reader) (*Stats, error) { return readStats(r, -1, nil) }

// readStats is ReadStats of a reader holding size bytes (-1: unknown). Of
// a known size the header's claims are checked against it before anything
// large is allocated; otherwise the rest of the file is read in blocks
// first (so that a header claiming more than the data holds allocates no
// more than the data). With skip (r an io.Seeker of known size), the G of
// a version 2 file holding the factor of its own G is skipped (its offset
// and checksum kept in skip, and Stats.loadG set).
func readStats(r io.Reader, size int64, skip *gramAt) (*Stats, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrStats, fmt.Sprintf(format, a...))
	}
	pre := make([]byte, 16)
	if _, err := io.ReadFull(r, pre); err != nil {
		return nil, bad("truncated preamble")
	}
	le := binary.LittleEndian
	if string(pre[:8]) != statsMagic {
		return nil, bad("not a statistics file (magic %q)", pre[:8])
	}
	version := le.Uint32(pre[8:])
	if version != statsVersion && version != statsVersionF {
		return nil, bad("format version %d, want %d or %d", version, statsVersion, statsVersionF)
	}
	hlen := int64(le.Uint32(pre[12:]))
	if hlen < 2 || hlen > maxHeader {
		return nil, bad("header length %d", hlen)
	}
	raw := make([]byte, hlen)
	if _, err := io.ReadFull(r, raw); err != nil {
		return nil, bad("truncated header")
	}
	sum := crc32.Update(crc32.Update(0, castagnoli, pre), castagnoli, raw)
	var h statsHeader
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, bad("header: %v", err)
	}
	switch {
	case h.Samples < 1 || h.Outputs < 1 || h.Nodes < 1 || h.RecipeBytes < 1:
		return nil, bad("header claims %d images, %d outputs, %d nodes, a recipe of %d bytes", h.Samples, h.Outputs, h.Nodes, h.RecipeBytes)
	case h.Classes != nil && (len(h.Classes) != h.Outputs || len(h.ClassCounts) != h.Outputs):
		return nil, bad("%d class names and %d counts for %d outputs", len(h.Classes), len(h.ClassCounts), h.Outputs)
	case (h.Factor != nil) != (version == statsVersionF):
		return nil, bad("format version %d with a factor section: %v", version, h.Factor != nil)
	case h.Factor != nil && (h.Factor.Samples < 1 || h.Factor.Samples > h.Samples):
		return nil, bad("a factor of the G of %d images in statistics of %d", h.Factor.Samples, h.Samples)
	case h.Factor != nil && (!(h.Factor.Ridge >= 0) || math.IsInf(h.Factor.Ridge, 0)):
		return nil, bad("a factor with ridge %v", h.Factor.Ridge)
	}
	l, m := float64(h.Nodes), float64(h.Outputs)
	sums := 8 * (l*l + l*m + m*m)
	fbytes := 0.0
	if h.Factor != nil {
		fbytes = 4*l*(l+1) + 12
	}
	if float64(h.RecipeBytes)+sums+fbytes+4 > maxStatsBytes {
		return nil, bad("header claims %d nodes and %d outputs: %.3g bytes, too large", h.Nodes, h.Outputs, sums+fbytes)
	}
	rest := int64(h.RecipeBytes) + int64(sums) + int64(fbytes) + 4
	if size >= 0 {
		switch have := size - 16 - hlen; {
		case have < rest:
			return nil, bad("truncated: %d of %d bytes after the header", have, rest)
		case have > rest:
			return nil, bad("trailing bytes after the checksum")
		}
	} else {
		var err error
		if r, err = readBlocks(r, rest); err != nil {
			return nil, bad("%v", err)
		}
	}
	recBytes := make([]byte, h.RecipeBytes)
	if _, err := io.ReadFull(r, recBytes); err != nil {
		return nil, bad("truncated recipe")
	}
	sum = crc32.Update(sum, castagnoli, recBytes)
	var want [4]byte
	// check reads a section's checksum and compares it with sum.
	check := func(what string) error {
		if _, err := io.ReadFull(r, want[:]); err != nil {
			return bad("truncated checksum")
		}
		if sum != le.Uint32(want[:]) {
			return bad("checksum mismatch in %s (corrupt file)", what)
		}
		sum = 0
		return nil
	}
	if version == statsVersionF {
		if err := check("the header"); err != nil {
			return nil, err
		}
	}
	ln, mn := h.Nodes, h.Outputs
	s := &Stats{N: h.Samples, M: mn, Classes: h.Classes, ClassCounts: h.ClassCounts,
		HT: make([]float64, ln*mn), TT: make([]float64, mn*mn)}
	buf := make([]byte, min(statsIOBlock, int(sums)))
	sk, _ := r.(io.Seeker)
	if skip != nil && sk != nil && h.Factor != nil && h.Factor.Samples == h.Samples {
		off, err := sk.Seek(8*int64(ln)*int64(ln), io.SeekCurrent)
		if err != nil {
			return nil, bad("%v", err)
		}
		if _, err := io.ReadFull(r, want[:]); err != nil {
			return nil, bad("truncated checksum")
		}
		skip.off, skip.l, skip.sum = off-8*int64(ln)*int64(ln), ln, le.Uint32(want[:])
		s.loadG = skip.load
	} else {
		s.G = bigmem.Float64s(ln * ln)
		var err error
		if sum, err = readFloats(r, s.G, buf, sum); err != nil {
			return nil, bad("truncated sums")
		}
		if version == statsVersionF {
			if err := check("G"); err != nil {
				return nil, err
			}
		}
	}
	for _, part := range [][]float64{s.HT, s.TT} {
		var err error
		if sum, err = readFloats(r, part, buf, sum); err != nil {
			return nil, bad("truncated sums")
		}
	}
	if version == statsVersionF {
		if err := check("H^T T and T^T T"); err != nil {
			return nil, err
		}
		fa := &Factor{N: h.Factor.Samples, Ridge: h.Factor.Ridge, l: ln, p: bigmem.Float64s(lsq.PackedLen(ln))}
		t := fa.tri()
		// The rows of the lower triangle, one after another: read as one
		// stream a block at a time.
		left := int64(4 * l * (l + 1))
		row, col := 0, 0
		for left > 0 {
			b := buf[:min(int64(len(buf)), left)]
			if _, err := io.ReadFull(r, b); err != nil {
				return nil, bad("truncated factor")
			}
			sum = crc32.Update(sum, castagnoli, b)
			left -= int64(len(b))
			for len(b) > 0 {
				k := min(len(b)/8, row+1-col)
				dst := t.Row(row)[col : col+k]
				for i := range dst {
					dst[i] = math.Float64frombits(le.Uint64(b[8*i:]))
				}
				b = b[8*k:]
				if col += k; col > row {
					row, col = row+1, 0
				}
			}
		}
		if err := check("the factor"); err != nil {
			return nil, err
		}
		s.Factor = fa
	} else if err := check("the file"); err != nil {
		return nil, err
	}
	if size >= 0 {
		if n, _ := io.ReadFull(r, buf[:1]); n != 0 {
			return nil, bad("trailing bytes after the checksum")
		}
	}
	rec, err := Read(bytes.NewReader(recBytes))
	if err != nil {
		return nil, bad("recipe: %v", err)
	}
	if rec.Nodes()+rec.DirectDim() != h.Nodes {
		return nil, bad("recipe of %d nodes and %d direct features, header says %d columns", rec.Nodes(), rec.DirectDim(), h.Nodes)
	}
	s.Recipe = rec
	for _, part := range [][]float64{s.G, s.HT, s.TT} {
		if err := checkFinite(part, "statistics"); err != nil {
			return nil, bad("%v", err)
		}
	}
	if s.Factor != nil {
		if err := checkFactor(s.Factor, ln, s.N); err != nil {
			return nil, bad("%v", err)
		}
	}
	return s, nil
}

// readBlocks reads the rest of a statistics file of unknown size, which
// must hold exactly n more bytes, in blocks (no block is allocated before
// the data to fill it has arrived), and returns a reader of them.
func readBlocks(r io.Reader, n int64) (io.Reader, error) {
	var parts []io.Reader
	for left := n; left > 0; {
		b := make([]byte, min(left, statsIOBlock))
		got, err := io.ReadFull(r, b)
		if err != nil {
			return nil, fmt.Errorf("truncated: %d of %d bytes after the header", n-left+int64(got), n)
		}
		parts = append(parts, bytes.NewReader(b))
		left -= int64(got)
	}
	if k, _ := io.ReadFull(r, make([]byte, 1)); k != 0 {
		return nil, errors.New("trailing bytes after the checksum")
	}
	return io.MultiReader(parts...), nil
}
