package scn

import (
	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/memest"
)

// Estimate is the memory a fit of a Config on a training set of a Shape
// takes, by part: Config.Estimate gives it for a fit in memory (Fit,
// Select), Config.EstimateStream for a streamed one (FitStream,
// SelectStream). It is the library's one entry point for memory
// estimates: the older EstimateMemory, EstimateBytes, EstimateStreamMemory
// and Selection.EstimateBytes functions (and their C variants), which take
// the shape as loose integers, are thin wrappers of the same arithmetic
// and give the same figures. Prediction's is Model.PredictBytes. Its parts
// and sums are internal/memest's Estimate.
type Estimate = memest.Estimate

// Estimate returns the memory a fit of c in memory on a training set of
// shape sh takes, with its data (Shape.Bytes); with sel, model selection's
// on top (Select, SelectFolds). The model has sh.Outputs() outputs.
func (c Config) Estimate(sh Shape, sel *Selection) Estimate {
	e := c.estimate(sh.N, sh.Rows, sh.Cols, sh.Channels, sh.Outputs(), sel)
	e.Data = sh.Bytes()
	return e
}

// EstimateStream returns the memory a streamed fit of c (FitStream) on a
// set of shape sh takes beside its source's buffers; with sel, a streamed
// selection's on top (SelectStream, which holds one row per image).
func (c Config) EstimateStream(sh Shape, sel *Selection) Estimate {
	m := sh.Outputs()
	e := Estimate{Stream: c.streamBytes(sh.Rows, sh.Cols, sh.Channels, m)}
	if sel != nil {
		e.Selection = sel.streamSelectionBytes(c, sh.N, sh.Rows, sh.Cols, sh.Channels, m)
	}
	return e
}

// estimate is Estimate without the data, the shape as integers: the fit's
// parts (estimateMemory), the direct links' features, and with sel the
// selection's bytes.
func (c Config) estimate(n, rows, cols, chans, m int, sel *Selection) Estimate {
	e := Estimate{Fit: c.estimateMemory(n, rows, cols, chans, m, runOpts{})}
	if c.DirectLink {
		e.Direct = direct.Bytes(n, rows, cols, chans, c.MaxNodes)
	}
	if sel != nil {
		e.Selection = sel.selectionBytes(c, n, rows, cols, chans, m)
	}
	return e
}
