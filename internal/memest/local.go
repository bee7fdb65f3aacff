package memest

import "github.com/scn2d/scn/internal/lsq"

// Local describes a fit of local (convolutional) nodes for its estimates:
// the images' shape, the layer's outputs and geometry, the candidates a
// step scores, and the switches the buffers depend on. The root package
// fills it from its Config; the second layer's and augmentation's bytes,
// which its drivers count, are added by the caller (Extra...).
type Local struct {
	N, Rows, Cols, Chans, M int
	Outputs                 int   // L: the pooled outputs of every filter (the model's nodes)
	PerFilter               int   // pooled outputs of one filter
	Sizes                   []int // the filter sizes k (k x k filters)
	Filters                 int   // filters per size
	Step                    int   // filters a step scores (a random block, or a supervised block's candidates)
	RandomBlock             int   // filters a random step draws (the streamed fit's conv buffers)
	Whiten                  bool  // ZCA-whitened patches
	WhitenSamples           int   // patches the whitening samples
	Float32Gram, BF16Gram   bool
	Workers                 int // goroutines (GOMAXPROCS)
	// ExtraCandidates and ExtraFactor are bytes the caller's drivers add to
	// the parts (a second layer's per-goroutine maps; an augmented fit's
	// second engine and copies).
	ExtraCandidates, ExtraFactor int64
}

// kmax returns the largest filter side (at least 1).
func (g Local) kmax() int {
	k := 1
	for _, s := range g.Sizes {
		k = max(k, s)
	}
	return k
}

// banks returns the filters of every size.
func (g Local) banks() float64 { return float64(g.Filters * len(g.Sizes)) }

// Fit returns the memory of a local fit in memory (see Memory): per step,
// the candidates' pooled outputs on every image (float32, by image and by
// column) and, per goroutine, one image's patches and maps (or the
// whitening's sample of patches and its covariance's factors, the larger);
// the block engine's H (N x L float32), G with its factor (L x L float64)
// and the targets and residual; the model's filters and output weights.
func (g Local) Fit() Memory {
	N, M := float64(max(g.N, 1)), float64(max(g.M, 1))
	ch := float64(max(g.Chans, 1))
	L := float64(g.Outputs)
	per := float64(g.PerFilter)
	kmax := g.kmax()
	step := float64(g.Step)
	pos := float64(g.Rows+kmax) * float64(g.Cols+kmax)
	procs := float64(g.Workers)
	var e Memory
	e.Candidates = BytesOf(2*4*step*per*N + procs*4*pos*(ch*float64(kmax*kmax)+step) + 8*per*N*procs)
	if g.Whiten {
		// The patches' sample and the covariance's factors.
		kk := ch * float64(kmax*kmax)
		e.Candidates = max(e.Candidates, BytesOf(8*min(float64(g.WhitenSamples), N*pos)*kk+5*8*kk*kk))
	}
	e.Candidates += g.ExtraCandidates
	e.Factor = BytesOf(4*N*L+8*L*L+8*L*M+3*8*N*M) + g.ExtraFactor
	e.Model = BytesOf(4*L*3 + 8*L*M + 4*g.banks()*(ch*float64(kmax*kmax)+1) + 64*g.banks())
	return e
}

// Stream returns the memory of a streamed fit of local random filters,
// which does not grow with N: the engine's G with its factor and H^T T,
// a pass's buffers and one row shard's pooled outputs (float32, and
// float64 with float64 Gram products), the moments' sums, one row shard
// of images and targets, per goroutine one image's patches and maps, and
// the model (with whitening, the patches' samples of every size and one
// size's covariance, eigenvectors and matrices).
func (g Local) Stream() int64 {
	L, M := float64(g.Outputs), float64(max(g.M, 1))
	r := float64(lsq.ShardRows)
	chans := max(g.Chans, 1)
	d := float64(max(g.Rows, 1)) * float64(max(g.Cols, 1)) * float64(chans)
	kmax := g.kmax()
	kk := float64(chans * kmax * kmax)
	pos := float64(g.Rows+kmax) * float64(g.Cols+kmax)
	procs := float64(g.Workers)
	block := float64(g.RandomBlock)
	engine := 8*L*L + 8*L + 3*8*L*M
	shard := 2 * 4 * L * r
	if !g.Float32Gram && !g.BF16Gram {
		shard += 8 * L * r
	}
	moments := 4 * 8 * L
	images := 4*d*r + 2*8*M*r
	conv := procs*4*pos*(kk+block+1) + 4*kk*block
	model := 4*L*3 + 8*L*M + 4*g.banks()*(kk+1) + 64*g.banks()
	if g.Whiten {
		for _, k := range g.Sizes {
			kk := float64(chans * k * k)
			model += float64(g.WhitenSamples)*(8*kk+16+8) + 8*6*kk*kk + 4*kk*kk
		}
	}
	return BytesOf(engine + shard + moments + images + conv + model)
}

// LocalPredict describes a local model's prediction for its estimate.
type LocalPredict struct {
	N, M       int     // images, outputs
	Nodes      int     // L
	Rows, Cols int     // the images' planes
	Chans      int     // planes per image
	Banks      [][]int // each bank's filter size and filters: {size, filters}
	Batch      int     // images a pass forms the pooled outputs of
	Workers    int     // goroutines (GOMAXPROCS)
}

// Bytes returns what predicting N images allocates beyond the images: the
// outputs, a pass's pooled outputs (float32 and float64) and, per
// goroutine, one image's patches and maps.
func (p LocalPredict) Bytes() int64 {
	l := float64(p.Nodes)
	kk, f, pos := 0.0, 0.0, float64(p.Rows+1)*float64(p.Cols+1)
	for _, b := range p.Banks {
		kk = max(kk, float64(p.Chans*b[0]*b[0]))
		f = max(f, float64(b[1]))
	}
	return BytesOf(8*float64(p.N)*float64(p.M) + 12*l*float64(p.Batch) + float64(p.Workers)*4*pos*(kk+f+1) + 4*kk*f)
}

// Augment is what an augmented local fit adds to its Factor: one row
// shard's outputs of every column (float32, and float64 with float64
// products, or the packed bfloat16 shard beside the kept outputs), its
// products' scratch over a random step's columns, and the copies' moves
// (24 bytes each). The second engine's G and factor (L x L float64) take
// the place of the first's, released before them; the collector may not
// have returned it yet, so it is counted too.
func Augment(n, outputs, stepCols, copies int, float32Gram, bf16Gram bool) int64 {
	L := float64(outputs)
	r := float64(min(max(n, 1), lsq.ShardRows))
	shard := 4 * L * r
	if !(float32Gram || bf16Gram) {
		shard += 8 * L * r
	}
	if bf16Gram {
		shard += 2 * L * r
	}
	return BytesOf(8*L*L + shard + 8*L*float64(stepCols) + 24*float64(copies))
}
