package modelrec

import (
	"fmt"

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/statsfile"
)

// Sufficient statistics of models of local nodes (scn.Config.Local; issue
// 31 item 5).
//
// A local model's hidden outputs are the pooled outputs of its filters,
// standardised when the model records a standardisation (LocalLayer.Mean
// and Scale, fixed by the fit on its training images): the very values its
// predictions multiply by the output weights (scn.Model.hidden,
// hiddenLocal). Their sums G, H^T T and T^T T are formed as for global
// nodes, and the standardisation stays the fit's: new images are
// standardised with the training images' moments, as predictions
// standardise them, so that statistics of any images of the same model add
// up.
//
// A model fitted with augmentation (Config.Augment recorded: its output
// weights solve the sums of the images and of their copies) sums each
// image's copies too, the Extra() copies of image i of the set being
// Augment.moves(N, Seed)[i*Extra() ...], drawn from the model's seed as
// the fit draws them: the statistics of the training images then hold
// every row of the fit's least squares and solve to its output weights.
// The statistics of other images (scn update, scn serve --learn) hold
// their copies drawn the same way from their positions in the set summed
// (not the copies a fit on the union would draw: for an augmented model,
// an update is the least squares of the old rows and the new images'
// rows, each with its own copies). Stats.N and ClassCounts count rows,
// copies included; the solved model's Summary.Samples counts images.

// CheckCopies reports why the model's statistics rows cannot be formed
// on images of rows x cols, if they cannot: an augmented model with
// direct links, or an augmentation forImages refuses for the images.
func (m *Model) CheckCopies(rows, cols int, forImages func(a *augment.Spec, rows, cols int) error) error {
	if m.AugmentRows() == 1 {
		return nil
	}
	if m.Direct != nil {
		return fmt.Errorf("%w: direct links of augmented copies (a model with both has no statistics yet)", statsfile.ErrStats)
	}
	if err := forImages(m.Augment, rows, cols); err != nil {
		return fmt.Errorf("%w: %v", statsfile.ErrStats, err)
	}
	return nil
}

// ForCopies calls f with the hidden outputs (L x rows, node-major) of the
// copies of an augmented local model's statistics rows over the n images
// pix of rows x cols x chans (whose shape is the model's), which are the
// images first ... first+n-1 of a set (0: pix is the set): each copy c of
// every image (all images' copy c, then copy c+1), a batch of consecutive
// images lo ... lo+rows-1 at a time, so that row i of a batch belongs to
// image lo+i. It does nothing for a model without copies (AugmentRows 1):
// the images' own rows are the caller's.
func (m *Model) ForCopies(pix []float32, n, rows, cols, chans, first int, f func(lo, rows int, hb []float32)) error {
	extra := m.AugmentRows() - 1
	if extra == 0 {
		return nil
	}
	nt := m.Net()
	d, l := chans*rows*cols, m.localOutputs()
	a := m.Augment
	moves := augment.MovesFrom(a.Flip, a.Shift, a.Copies, first, n, m.Seed)
	layers := nt.Layers()
	b := min(n, localnet.Batch)
	img := make([]float32, b*d)
	h := make([]float32, b*l)
	ht := make([]float32, b*l)
	for c := 0; c < extra; c++ {
		for lo := 0; lo < n; lo += localnet.Batch {
			r := min(localnet.Batch, n-lo)
			for k := 0; k < r; k++ {
				i := lo + k
				augment.Image(img[k*d:(k+1)*d], pix[i*d:(i+1)*d], rows, cols, chans, moves[i*extra+c])
			}
			if err := nt.Features(layers, img[:r*d], r, h); err != nil {
				return err
			}
			for k := 0; k < r; k++ {
				for j := 0; j < l; j++ {
					ht[j*r+k] = h[k*l+j]
				}
			}
			f(lo, r, ht[:l*r])
		}
	}
	return nil
}
