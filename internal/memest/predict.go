package memest

// Predict is a global-node model's prediction of N images for its memory
// (scn's Model.PredictBytes): Nodes hidden nodes (Deep: a deep model's,
// Width its widest layer or its output layer's inputs), M outputs, images
// of Rows x Cols; Matrix and Chans > 1 when its nodes are matrix nodes of
// several planes; the drivers' NodeChunk (nodes formed at a time) and
// Batch (images at a time).
type Predict struct {
	N, Nodes, Width, M, Rows, Cols, Chans int
	Deep, Matrix                          bool
	NodeChunk, Batch                      int
}

// Bytes returns the bytes a prediction allocates beyond its images: the
// outputs, and one pass's working memory (a chunk of hidden outputs in
// float32 and float64, the outputs of the pass, and the packed nodes, with
// one more chunk of node inputs for matrix nodes of several planes), which
// does not grow with L (a deep model's pass holds every layer's outputs).
func (p Predict) Bytes() int64 {
	predictBatch := float64(p.Batch)
	c := float64(min(p.Nodes, p.NodeChunk))
	if p.Deep {
		// Every layer's outputs of a pass, and a layer's transposed input.
		c = float64(p.Nodes) + float64(p.Width)/3
	}
	pack := 4 * (c + 32) * float64(p.Rows+p.Cols)
	if p.Matrix && p.Chans > 1 {
		pack += 4 * c * predictBatch
	}
	return BytesOf(8*float64(p.N)*float64(p.M) + (4+8)*c*predictBatch + 8*float64(p.M)*predictBatch + pack)
}

// Deep combines the estimates of a deep fit on n images whose first layer
// has first nodes and the further layers layers nodes each: est(total,
// prev, k) is layer k's estimate (k = 0: the first layer's fit with room
// for every layer's columns, total of them; k >= 1: the candidates of
// layer k on the previous layer's prev outputs). The first layer's
// estimate counts, with the largest of the further layers' candidates and
// their input (the previous layer's outputs copied, N x prev float32).
func Deep(n, first int, layers []int, est func(total, prev, k int) Memory) Memory {
	total, prev := first, first
	for _, l := range layers {
		total += l
	}
	e := est(total, 0, 0)
	for k, l := range layers {
		le := est(total, prev, k+1)
		e.Candidates = max(e.Candidates, SatAdd(le.Candidates, BytesOf(4*float64(max(n, 1))*float64(prev))))
		prev = l
	}
	return e
}

// StreamKeep returns what a streamed fit keeps beside its state: its
// first keep images of d values (float32) and their m outputs' targets
// (float64).
func StreamKeep(keep int, d float64, m int) int64 {
	k := float64(keep)
	return BytesOf(k * (4*d + 8*float64(max(m, 1))))
}
