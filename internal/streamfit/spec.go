package streamfit

import (
	"fmt"

	"github.com/scn2d/scn/internal/cfgerr"
)

// Spec is what decides whether a configuration streams and how many reads
// of the data its streamed fit takes: scn.Config's fields as plain values.
type Spec struct {
	Kind       string  // the learner's name, for messages
	Local      bool    // local nodes (Config.Local)
	Supervised bool    // SCN or 2DSCN
	BF16Gram   bool    // bfloat16 Gram products
	Block      bool    // nodes added in blocks (Config's block mode)
	Robust     bool    // robust output weights
	Augment    bool    // an augmentation of the images
	Ridge      float64 // the ridge term
	BlockSize  int
	MaxNodes   int
	// Pairs and Standardize: standardised pair candidates (global nodes).
	Pairs, Standardize bool
	// LocalStandardize, Whiten, Second: a local fit's standardised pooled
	// outputs, whitening and second layer.
	LocalStandardize, Whiten, Second bool
}

// Fits reports whether a streamed fit can fit s, and if not, why (an
// error wrapping cfgerr.ErrConfig).
func (s Spec) Fits() error {
	if s.Local {
		switch {
		case s.Supervised:
			return fmt.Errorf("%w: local nodes of %s are not streamed (each block of filters is chosen on the residual of every image; not built): fit them in memory (--resize, fewer --filters) or stream a random learner (rvfl, 2drvfl)", cfgerr.ErrConfig, s.Kind)
		case s.Augment:
			return fmt.Errorf("%w: augmented local fits are not streamed (their copies are formed from the images in memory)", cfgerr.ErrConfig)
		case !(s.Ridge > 0):
			return fmt.Errorf("%w: a streamed fit needs a ridge > 0", cfgerr.ErrConfig)
		}
		return nil
	}
	switch {
	case s.Supervised && s.BF16Gram:
		return fmt.Errorf("%w: %s with bfloat16 Gram products (BF16Gram) is not streamed (its residual is formed from the outputs rounded as stored, which a streamed pass does not reproduce; not built): use float32 or float64 Gram products", cfgerr.ErrConfig, s.Kind)
	case !s.Block:
		return fmt.Errorf("%w: a streamed fit adds its nodes in blocks (a block size above 1, or a preset such as fast)", cfgerr.ErrConfig)
	case !(s.Ridge > 0):
		return fmt.Errorf("%w: a streamed fit needs a ridge > 0 (without one a dependent node would need the images again)", cfgerr.ErrConfig)
	case s.Robust:
		return fmt.Errorf("%w: robust output weights reweight the images in one pass each: not streamed", cfgerr.ErrConfig)
	}
	return nil
}

// Passes returns the reads of the data a streamed fit of s takes when
// every block step finds its nodes at the first scale (scn's
// Config.StreamPasses). A local fit's: 3, or 2 without standardisation of
// the pooled outputs, one more for whitening and one more for a second
// layer (the moments of the planes it reads).
func (s Spec) Passes() int {
	if s.Local {
		n := 2
		if s.LocalStandardize {
			n++
		}
		if s.Whiten {
			n++
		}
		if s.Second {
			n++
		}
		return n
	}
	if !s.Supervised {
		return 2
	}
	bs := max(s.BlockSize, 1)
	steps := (max(s.MaxNodes, 1) + bs - 1) / bs
	if s.Pairs && s.Standardize {
		steps *= 2
	}
	return steps + 2
}
