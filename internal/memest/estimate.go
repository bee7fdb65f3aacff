package memest

// Estimate is the memory a fit takes on a training set, by part
// (scn.Estimate: scn's Config.Estimate gives it for a fit in memory,
// Config.EstimateStream for a streamed one).
type Estimate struct {
	// Data is the training set held in memory (scn.Shape.Bytes: the pixels as
	// float32, the labels, targets and origins). A streamed fit holds no
	// whole set: 0 (the images it keeps are in Stream; the source's
	// buffers are the caller's).
	Data int64
	// Fit is a fit in memory's allocations beyond its data, by part (for
	// deep and local configurations too); zero for a streamed fit.
	Fit Memory
	// Direct is the direct-link features of a fit in memory with
	// scn.Config.DirectLink.
	Direct int64
	// Stream is a streamed fit's allocations, which do not grow with N:
	// its state at the first images, the images it keeps and one row
	// shard (scn.Config.EstimateStreamMemoryC); 0 for a fit in memory.
	Stream int64
	// Selection is what model selection takes on top of the fit (the
	// held-out outputs, normal equations, the grid's weights); 0 without
	// a Selection.
	Selection int64
}

// FitBytes returns the fit's own bytes beyond its data and the selection:
// Fit's total with Direct, or Stream (scn.Config.EstimateBytesC, or
// scn.Config.EstimateStreamMemoryC).
func (e Estimate) FitBytes() int64 { return e.Fit.Total() + e.Direct + e.Stream }

// Total returns the sum of the parts: Data, the fit's bytes and Selection.
func (e Estimate) Total() int64 { return e.Data + e.FitBytes() + e.Selection }
