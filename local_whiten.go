package scn

import (
	"github.com/scn2d/scn/internal/local"
	"github.com/scn2d/scn/internal/localnet"
)

// Whitening of the patches of local nodes (Local.Whiten): the sample of
// patches, standardised, and its whitening are internal/localnet's
// (whiten.go there), the covariance and its eigendecomposition
// internal/local's.

// patchWhitening is the whitening of the patches of one filter size
// (internal/local's math).
type patchWhitening = local.Whitening

// whitenPatches returns the whitening of the patches of side k of the
// images x under geometry g, the planes' moments (cmean, csd) given.
func whitenPatches(x Images, g *Local, k int, cmean, csd []float64, seed uint64) (*patchWhitening, error) {
	return localnet.WhitenPatches(x.Pix, x.Len(), x.Rows, x.Cols, x.Chans(), g, k, cmean, csd, seed)
}
