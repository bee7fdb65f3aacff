package scn

import "testing"

// TestEstimateParts: the one entry point (Estimate, EstimateStream) gives
// what the older estimators give, part by part, for fits in memory and
// streamed, grey and colour, with and without selection, direct links,
// deep layers and local nodes; its Data is the shape's bytes and Total the
// sum of the parts.
func TestEstimateParts(t *testing.T) {
	deep := Fast(SCN2D)
	deep.Layers = []int{300, 100}
	loc := Default(RVFL2D)
	loc.Local = DefaultLocal()
	dl := Default(SCN2D)
	dl.DirectLink = true
	cfgs := []Config{Paper(SCN), Default(SCN2D), Fast(RVFL2D), Fast(SCN), deep, loc, dl}
	sels := []*Selection{nil, {Validation: 0.1}, {Folds: 5}, {Validation: 0.2, TryDirect: true}}
	for i, c := range cfgs {
		for _, sh := range []Shape{
			{N: 1000, Rows: 28, Cols: 28, Channels: 1, Labels: true, Classes: 10},
			{N: 300, Rows: 32, Cols: 24, Channels: 3, Labels: true, Classes: 5},
			{N: 200, Rows: 16, Cols: 16, Channels: 1, TargetDim: 2, Origin: true},
		} {
			n, r, k, ch, m := sh.N, sh.Rows, sh.Cols, sh.Channels, sh.Outputs()
			for _, sel := range sels {
				e := c.Estimate(sh, sel)
				var wantSel int64
				if sel != nil {
					wantSel = sel.EstimateBytesC(c, n, r, k, ch, m)
				}
				switch {
				case e.Data != sh.Bytes() || e.Stream != 0:
					t.Errorf("%d %+v: data %d, stream %d", i, sh, e.Data, e.Stream)
				case e.Fit != c.EstimateMemoryC(n, r, k, ch, m) || e.FitBytes() != c.EstimateBytesC(n, r, k, ch, m):
					t.Errorf("%d %+v: fit %+v (%d bytes), the older estimators %+v (%d)", i, sh, e.Fit, e.FitBytes(), c.EstimateMemoryC(n, r, k, ch, m), c.EstimateBytesC(n, r, k, ch, m))
				case e.Selection != wantSel:
					t.Errorf("%d %+v %+v: selection %d, want %d", i, sh, sel, e.Selection, wantSel)
				case e.Total() != e.Data+e.Fit.Total()+e.Direct+e.Selection || (c.DirectLink != (e.Direct > 0)):
					t.Errorf("%d %+v: total %d of %+v", i, sh, e.Total(), e)
				}
				if ch == 1 && (e.Fit != c.EstimateMemory(n, r, k, m) || e.Fit.Total() != c.EstimateBytes(n, r, k, m)) {
					t.Errorf("%d %+v: grey estimators differ", i, sh)
				}
				if c.Local != nil || len(c.Layers) > 0 || c.DirectLink {
					continue // not streamed
				}
				s := c.EstimateStream(sh, sel)
				wantSel = 0
				if sel != nil {
					wantSel = sel.EstimateStreamBytesC(c, n, r, k, ch, m)
				}
				if s.Stream != c.EstimateStreamMemoryC(r, k, ch, m) || s.Selection != wantSel || s.Data != 0 || s.Fit != (Memory{}) || s.Total() != s.Stream+s.Selection {
					t.Errorf("%d %+v %+v: streamed %+v, want stream %d selection %d", i, sh, sel, s, c.EstimateStreamMemoryC(r, k, ch, m), wantSel)
				}
			}
		}
	}
}

// TestShapeBytes: a shape's values per image, bytes in memory and outputs.
func TestShapeBytes(t *testing.T) {
	sh := Shape{N: 10, Rows: 4, Cols: 5, Channels: 3, Labels: true, Classes: 7, Origin: true}
	if sh.Dim() != 60 || sh.Bytes() != 10*60*4+10*8+10*8 || sh.Outputs() != 7 {
		t.Errorf("%+v: dim %d, bytes %d, outputs %d", sh, sh.Dim(), sh.Bytes(), sh.Outputs())
	}
	reg := Shape{N: 3, Rows: 2, Cols: 2, TargetDim: 2}
	if reg.Dim() != 4 || reg.Bytes() != 3*4*4+3*2*8 || reg.Outputs() != 2 {
		t.Errorf("%+v: dim %d, bytes %d, outputs %d", reg, reg.Dim(), reg.Bytes(), reg.Outputs())
	}
	if (Shape{}).Outputs() != 1 {
		t.Error("an empty shape has no output")
	}
}
