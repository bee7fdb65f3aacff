package scn

import (
	"context"

	"github.com/scn2d/scn/internal/localnet"
)

// Streamed fits of whitened local nodes (Local.Whiten with FitStream): one
// more pass over the data, after the first (which gives the planes'
// moments and the number of images), gathers each filter size's sample of
// patches (internal/localnet's Gather: the sample planned as the fit in
// memory plans it, the same patches drawn from the same random stream,
// each read when its image comes by), so that the whitening is the fit in
// memory's, bit for bit. Memory: the samples (at most
// localnet.WhitenSamples rows of C k^2 float64 per filter size, 30 MB for
// 5 x 5 x 3) and one row shard of images.

// localStreamWhitening returns the whitening of each filter size of g (in
// the order of g.Sizes) from a pass over src, whose first pass gave sc and
// the planes' moments (cmean, csd); channels is the images' Channels field.
func (c Config) localStreamWhitening(ctx context.Context, src Source, sc *streamScan, g *Local, cmean, csd []float64, channels int) ([]*patchWhitening, error) {
	ga, err := localnet.NewGather(sc.n, sc.rows, sc.cols, sc.chans, g, cmean, csd, c.Seed)
	if err != nil {
		return nil, err
	}
	x := Images{Rows: sc.rows, Cols: sc.cols, Channels: channels}
	err = streamRowsOf(ctx, src, sc, sc.n, &x, func(r int, _ []float64) error {
		ga.Add(x.Pix, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ga.Whitenings()
}
