package local

import (
	"fmt"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/par"
)

// Mid is the pooling between two layers: each activated map of the first
// layer is summarised over Window x Window windows every Stride positions
// (no padding), by their average or their maximum, into a coarser map
// that the second layer reads as one of its planes.
type Mid struct {
	Window  int     // q >= 1
	Stride  int     // s >= 1
	Pooling Pooling // Avg or Max
}

// Size returns the rows and columns of a pooled map of an h x w map:
// (h - Window) / Stride + 1 and likewise for columns.
func (m Mid) Size(h, w int) (int, int) {
	return (h-m.Window)/m.Stride + 1, (w-m.Window)/m.Stride + 1
}

// Validate reports why m cannot pool maps of h x w, if it cannot.
func (m Mid) Validate(h, w int) error {
	switch {
	case m.Window < 1 || m.Window > maxSide:
		return fmt.Errorf("%w: pooling window %d between the layers, want 1 ... %d", ErrSpec, m.Window, maxSide)
	case m.Stride < 1 || m.Stride > maxSide:
		return fmt.Errorf("%w: pooling stride %d between the layers, want 1 ... %d", ErrSpec, m.Stride, maxSide)
	case m.Pooling != Avg && m.Pooling != Max:
		return fmt.Errorf("%w: pooling %v between the layers, want avg or max", ErrSpec, m.Pooling)
	case m.Window > h || m.Window > w:
		return fmt.Errorf("%w: pooling window %d x %d between the layers is larger than the first layer's map of %d x %d", ErrSpec, m.Window, m.Window, h, w)
	}
	return nil
}

// Stack is two layers of local nodes. The first layer's filters are
// applied as Layer.Apply applies them and passed through its activation:
// with TwoSided, filter j gives the maps g(z_j) and g(-z_j), planes
// 2j and 2j+1 of the second layer's input, else g(z_j), plane j. Each map
// is pooled by Mid; the second layer (In: those planes, of the size Mid
// gives) is then applied to them, activated and pooled over its grid as
// Layer.Apply does. The first layer's own Pool and Pooling are not used
// here. An image's outputs depend on that image alone: the same bits
// whatever GOMAXPROCS is.
type Stack struct {
	First  *Layer
	Mid    Mid
	Second *Layer
	// Sep, when set, is the second layer's filters in separable form
	// (Second.W must be their full weights): Apply then mixes the planes
	// by w (one product for every filter) and filters each mixed map by
	// v along rows and u along columns, P + 2 k2 multiply-adds per
	// position and filter instead of P k2^2.
	Sep *SepFilters
}

// SepFilters are separable filters over P planes: filter j's weight for
// plane c, row a, column b is (u_ja v_jb) w_jc (w_jc = 1 when W is nil,
// for one plane).
type SepFilters struct {
	U, V, W []float32 // F x k, F x k, F x P (or nil)
}

// SepOf returns the separable form of f filters of side k over p
// planes whose parameters params lay out each filter's u (k), v (k) and,
// for p > 1, w (p) one after another, as a matrix learner's bank does;
// the filters params does not hold in full are left out.
func SepOf(params []float32, k, f, p int) *SepFilters {
	np := 2*k + p
	if p == 1 {
		np = 2 * k
	}
	sp := &SepFilters{U: make([]float32, 0, f*k), V: make([]float32, 0, f*k)}
	if p > 1 {
		sp.W = make([]float32, 0, f*p)
	}
	for j := 0; j < f && len(params) >= (j+1)*np; j++ {
		q := params[j*np : (j+1)*np]
		sp.U = append(sp.U, q[:k]...)
		sp.V = append(sp.V, q[k:2*k]...)
		if p > 1 {
			sp.W = append(sp.W, q[2*k:]...)
		}
	}
	return sp
}

// Planes returns the second layer's input shape the first layer and Mid
// give.
func (s *Stack) Planes() Shape {
	h, w := s.First.Spec.MapSize(s.First.In)
	r, c := s.Mid.Size(h, w)
	return Shape{Rows: r, Cols: c, Chans: s.First.Filters() * s.First.Spec.Sides()}
}

// Check reports whether the layers agree with each other and with their
// geometries.
func (s *Stack) Check() error {
	if s.First == nil || s.Second == nil {
		return fmt.Errorf("%w: a stack without its two layers", ErrSpec)
	}
	if err := s.First.Check(); err != nil {
		return err
	}
	h, w := s.First.Spec.MapSize(s.First.In)
	if err := s.Mid.Validate(h, w); err != nil {
		return err
	}
	if p := s.Planes(); s.Second.In != p {
		return fmt.Errorf("%w: the second layer reads %d planes of %d x %d, the first layer gives %d of %d x %d",
			ErrSpec, s.Second.In.Chans, s.Second.In.Rows, s.Second.In.Cols, p.Chans, p.Rows, p.Cols)
	}
	if err := s.Second.Check(); err != nil {
		return err
	}
	if sp := s.Sep; sp != nil {
		f, k, p := s.Second.Filters(), s.Second.Spec.Size, s.Second.In.Chans
		if len(sp.U) != f*k || len(sp.V) != f*k || (sp.W != nil && len(sp.W) != f*p) || (sp.W == nil && p != 1) {
			return fmt.Errorf("%w: separable second-layer weights of the wrong length", ErrSpec)
		}
	}
	return nil
}

// transposed returns the weights of l transposed, kk x F.
func (l *Layer) transposed() []float32 {
	kk, f := l.Spec.Weights(l.In), l.Filters()
	wt := make([]float32, kk*f)
	for j := 0; j < f; j++ {
		for t := 0; t < kk; t++ {
			wt[t*f+j] = l.W[j*kk+t]
		}
	}
	return wt
}

// stackScratch is one goroutine's working memory: one image's patches and
// maps for each layer, and its pooled first-layer maps.
type stackScratch struct {
	cols1, z1, cols2, z2, neg, maps, mix, t []float32
}

func (s *Stack) scratch() *stackScratch {
	h, w := s.First.Spec.MapSize(s.First.In)
	pos1 := (h*w + 31) &^ 31
	p := s.Planes()
	h2, w2 := s.Second.Spec.MapSize(p)
	pos2 := (h2*w2 + 31) &^ 31
	sc := &stackScratch{
		cols1: make([]float32, s.First.Spec.Weights(s.First.In)*pos1),
		z1:    make([]float32, s.First.Filters()*pos1),
		cols2: make([]float32, s.Second.Spec.Weights(p)*pos2),
		z2:    make([]float32, s.Second.Filters()*pos2),
		neg:   make([]float32, max(h*w, h2*w2)),
		maps:  make([]float32, p.Chans*p.Rows*p.Cols),
	}
	if s.Sep != nil {
		sc.cols2 = nil
		sc.mix = make([]float32, s.Second.Filters()*p.Rows*p.Cols)
		sc.t = make([]float32, (p.Rows+2*s.Second.Spec.Pad)*w2)
	}
	return sc
}

// maps writes the pooled first-layer maps of one image into sc.maps.
func (s *Stack) maps(img []float32, wt1 []float32, sc *stackScratch) {
	l := s.First
	h, w := l.Spec.MapSize(l.In)
	pos := h * w
	pos32 := (pos + 31) &^ 31
	f := l.Filters()
	l.im2col(img, sc.cols1, pos32)
	linalg.ProductTN32(l.Spec.Weights(l.In), f, pos32, wt1, sc.cols1, pos32, sc.z1, pos32)
	sides := l.Spec.Sides()
	hp, wp := s.Mid.Size(h, w)
	plane := hp * wp
	for j := 0; j < f; j++ {
		z := sc.z1[j*pos32 : j*pos32+pos]
		b := l.Bias[j]
		if sides == 2 {
			neg := sc.neg[:pos]
			for i, v := range z {
				neg[i] = -v
			}
			l.Act(neg, -b)
			s.Mid.pool(neg, h, w, sc.maps[(2*j+1)*plane:(2*j+2)*plane])
		}
		l.Act(z, b)
		s.Mid.pool(z, h, w, sc.maps[j*sides*plane:(j*sides+1)*plane])
	}
}

// pool summarises the h x w map m over the windows into dst (row-major
// over the pooled map): the maximum, or the sum (row by row, in float32)
// divided by Window^2.
func (m Mid) pool(src []float32, h, w int, dst []float32) {
	hp, wp := m.Size(h, w)
	q, st := m.Window, m.Stride
	size := float32(q * q)
	for pr := 0; pr < hp; pr++ {
		for pc := 0; pc < wp; pc++ {
			r0, c0 := pr*st, pc*st
			mx := src[r0*w+c0]
			var sum float32
			for rr := r0; rr < r0+q; rr++ {
				for _, v := range src[rr*w+c0 : rr*w+c0+q] {
					sum += v
					mx = max(mx, v)
				}
			}
			if m.Pooling == Max {
				dst[pr*wp+pc] = mx
			} else {
				dst[pr*wp+pc] = sum / size
			}
		}
	}
}

// Maps writes the pooled first-layer maps of the n images x into out, image
// i's at out[i*P:], P = Planes().Chans x Rows x Cols (planes one after
// another, each row-major): the planes the second layer reads.
func (s *Stack) Maps(x []float32, n int, out []float32) error {
	if err := s.Check(); err != nil {
		return err
	}
	d := s.First.In.Chans * s.First.In.Rows * s.First.In.Cols
	p := s.Planes()
	np := p.Chans * p.Rows * p.Cols
	if len(x) < n*d || len(out) < n*np {
		return fmt.Errorf("%w: %d values for %d images of %d, output %d for %d maps of %d", ErrSpec, len(x), n, d, len(out), n, np)
	}
	wt1 := s.First.transposed()
	par.Chunks(n, imageChunk, func(_, lo, hi int) {
		sc := s.scratch()
		for i := lo; i < hi; i++ {
			s.maps(x[i*d:(i+1)*d], wt1, sc)
			copy(out[i*np:(i+1)*np], sc.maps)
		}
	})
	return nil
}

// Apply writes the second layer's pooled outputs of the n images x into
// out as Layer.Apply does (image i's at out[i*ldo+off+j], j <
// Second.Outputs()), the second layer reading each image's pooled
// first-layer maps. It calls Check first and returns its error. The
// working memory is one image's patches and maps of each layer per
// goroutine.
func (s *Stack) Apply(x []float32, n int, out []float32, ldo, off int) error {
	if err := s.Check(); err != nil {
		return err
	}
	d := s.First.In.Chans * s.First.In.Rows * s.First.In.Cols
	if len(x) < n*d {
		return fmt.Errorf("%w: %d values for %d images of %d", ErrSpec, len(x), n, d)
	}
	l2 := s.Second
	if n > 0 && len(out) < (n-1)*ldo+off+l2.Outputs() {
		return fmt.Errorf("%w: output of %d values for %d images of %d outputs", ErrSpec, len(out), n, l2.Outputs())
	}
	wt1, wt2 := s.First.transposed(), l2.transposed()
	h2, w2 := l2.Spec.MapSize(l2.In)
	pos := h2 * w2
	pos32 := (pos + 31) &^ 31
	kk, f := l2.Spec.Weights(l2.In), l2.Filters()
	var ws []float32 // the separable filters' plane weights, P x F
	if s.Sep != nil {
		ws = s.Sep.transposed(f, l2.In.Chans)
	}
	par.Chunks(n, imageChunk, func(_, lo, hi int) {
		sc := s.scratch()
		for i := lo; i < hi; i++ {
			s.maps(x[i*d:(i+1)*d], wt1, sc)
			if s.Sep != nil {
				s.applySep(ws, sc, out[i*ldo:], off)
				continue
			}
			l2.im2col(sc.maps, sc.cols2, pos32)
			linalg.ProductTN32(kk, f, pos32, wt2, sc.cols2, pos32, sc.z2, pos32)
			for j := 0; j < f; j++ {
				l2.pool(sc.z2[j*pos32:j*pos32+pos], sc.neg[:pos], j, out[i*ldo:], off)
			}
		}
	})
	return nil
}

// Outputs returns the second layer's pooled outputs per image.
func (s *Stack) Outputs() int { return s.Second.Outputs() }

// transposed returns the plane weights P x F (all ones for one plane
// without W).
func (sp *SepFilters) transposed(f, p int) []float32 {
	ws := make([]float32, p*f)
	for j := 0; j < f; j++ {
		for c := 0; c < p; c++ {
			if sp.W == nil {
				ws[c*f+j] = 1
			} else {
				ws[c*f+j] = sp.W[j*p+c]
			}
		}
	}
	return ws
}

// applySep applies the separable second layer to one image's pooled maps
// (sc.maps) and writes its pooled outputs to out: the planes mixed by
// each filter's w (one product), then per filter the rows of the mixed
// map, zero-padded, filtered by v every Stride columns, and those columns
// by u every Stride rows, each sum in float32 in order.
func (s *Stack) applySep(ws []float32, sc *stackScratch, out []float32, off int) {
	l2 := s.Second
	in, sp := l2.In, l2.Spec
	f, k := l2.Filters(), sp.Size
	plane := in.Rows * in.Cols
	linalg.ProductTN32(in.Chans, f, plane, ws, sc.maps, plane, sc.mix, plane)
	h2, w2 := sp.MapSize(in)
	pad, st := sp.Pad, sp.Stride
	hp := in.Rows + 2*pad
	for j := 0; j < f; j++ {
		m := sc.mix[j*plane : (j+1)*plane]
		u, v := s.Sep.U[j*k:(j+1)*k], s.Sep.V[j*k:(j+1)*k]
		// t: row r of the padded map (r - pad of the mixed map) filtered
		// by v at each output column.
		t := sc.t[:hp*w2]
		for r := 0; r < hp; r++ {
			tr := t[r*w2 : (r+1)*w2]
			rr := r - pad
			if rr < 0 || rr >= in.Rows {
				clear(tr)
				continue
			}
			row := m[rr*in.Cols : (rr+1)*in.Cols]
			for pc := range tr {
				var a float32
				c0 := pc*st - pad
				for b, vb := range v {
					if c := c0 + b; c >= 0 && c < in.Cols {
						a += vb * row[c]
					}
				}
				tr[pc] = a
			}
		}
		z := sc.z2[:h2*w2]
		columnPass(z, t, u, h2, w2, st)
		l2.pool(z, sc.neg[:h2*w2], j, out, off)
	}
}
