package scn

import "github.com/scn2d/scn/internal/direct"

// Estimate is the memory a fit of a Config on a training set of a Shape
// takes, by part: Config.Estimate gives it for a fit in memory (Fit,
// Select), Config.EstimateStream for a streamed one (FitStream,
// SelectStream). It is the library's one entry point for memory
// estimates: the older EstimateMemory, EstimateBytes, EstimateStreamMemory
// and Selection.EstimateBytes functions (and their C variants), which take
// the shape as loose integers, are thin wrappers of the same arithmetic
// and give the same figures. Prediction's is Model.PredictBytes.
type Estimate struct {
	// Data is the training set held in memory (Shape.Bytes: the pixels as
	// float32, the labels, targets and origins). A streamed fit holds no
	// whole set: 0 (the images it keeps are in Stream; the source's
	// buffers are the caller's).
	Data int64
	// Fit is a fit in memory's allocations beyond its data, by part (for
	// deep and local configurations too); zero for a streamed fit.
	Fit Memory
	// Direct is the direct-link features of a fit in memory with
	// Config.DirectLink.
	Direct int64
	// Stream is a streamed fit's allocations, which do not grow with N:
	// its state at the first images, the images it keeps and one row
	// shard (EstimateStreamMemoryC); 0 for a fit in memory.
	Stream int64
	// Selection is what model selection takes on top of the fit (the
	// held-out outputs, normal equations, the grid's weights); 0 without
	// a Selection.
	Selection int64
}

// FitBytes returns the fit's own bytes beyond its data and the selection:
// Fit's total with Direct, or Stream (EstimateBytesC, or
// EstimateStreamMemoryC).
func (e Estimate) FitBytes() int64 { return e.Fit.Total() + e.Direct + e.Stream }

// Total returns the sum of the parts: Data, the fit's bytes and Selection.
func (e Estimate) Total() int64 { return e.Data + e.FitBytes() + e.Selection }

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

// outputsShape is the Shape of n images of chans planes of rows x cols
// whose model has m outputs, for the estimates of callers that know a
// problem's outputs rather than its labels (a budget's plans): Outputs
// gives m.
func outputsShape(n, rows, cols, chans, m int) Shape {
	return Shape{N: n, Rows: rows, Cols: cols, Channels: chans, TargetDim: m}
}
