package localnet

import (
	"runtime"

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/memest"
)

// Shape describes a local fit of g on n images of rows x cols x chans
// with m outputs to internal/memest (scn.Config's Float32Gram and
// BF16Gram given).
func Shape(g *Geometry, n, rows, cols, chans, m int, float32Gram, bf16Gram bool) memest.Local {
	return memest.Local{
		N: n, Rows: rows, Cols: cols, Chans: chans, M: m,
		Outputs: g.Outputs(), PerFilter: g.PerFilter(), Sizes: g.Sizes, Filters: g.Filters,
		RandomBlock: RandomBlock, Whiten: g.Whiten, WhitenSamples: WhitenSamples,
		Float32Gram: float32Gram, BF16Gram: bf16Gram, Workers: runtime.GOMAXPROCS(0),
	}
}

// FitMemory estimates a local fit's memory (memest's Local.Fit): a step
// scores RandomBlock random filters, or a supervised block's candidates
// (opt's Candidates of SupervisedStep(opt.BlockSize)); the second layer
// and augmentation (aug, nil: none; memest.Augment: its second engine,
// one row shard's outputs and the copies' moves) add their buffers.
func FitMemory(opt Options, g *Geometry, aug *augment.Spec, n, rows, cols, chans, m int, float32Gram, bf16Gram bool) memest.Memory {
	step := RandomBlock
	if opt.Supervised {
		step = SupervisedStep(opt.BlockSize)
		step *= max(opt.Candidates, 1)
	}
	s := Shape(g, n, rows, cols, chans, m, float32Gram, bf16Gram)
	s.Step = step
	s.ExtraCandidates = SecondMemory(g, n, rows, cols)
	if aug != nil {
		s.ExtraFactor = memest.Augment(n, g.Outputs(), RandomBlock*g.PerFilter(), n*aug.Extra(), float32Gram, bf16Gram)
	}
	return s.Fit()
}
