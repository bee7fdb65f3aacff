package scn

import (
	"context"
	"slices"
)

// Streamed fits of whitened local nodes (Local.Whiten with FitStream): one
// more pass over the data, after the first (which gives the planes'
// moments and the number of images), gathers each filter size's sample of
// patches. The sample is planned as the fit in memory plans it
// (newWhitenSample: the same patches drawn from the same random stream,
// which needs only the number of images), each patch is read when its
// image comes by and stored in its row of the sample, so that the
// whitening is the fit in memory's, bit for bit. Memory: the samples
// (at most whitenSamples rows of C k^2 float64 per filter size, 30 MB for
// 5 x 5 x 3) and one row shard of images.

// localStreamWhitening returns the whitening of each filter size of g (in
// the order of g.Sizes) from a pass over src, whose first pass gave sc and
// the planes' moments (cmean, csd); channels is the images' Channels field.
func (c Config) localStreamWhitening(ctx context.Context, src Source, sc *streamScan, g *Local, cmean, csd []float64, channels int) ([]*patchWhitening, error) {
	samples := make([]*whitenSample, len(g.Sizes))
	pats := make([][]float64, len(g.Sizes))
	// byImage[b][first[b][i]:first[b][i+1]] are the sample rows of size b
	// that image i gives (when the sample is drawn, not every patch).
	byImage, first := make([][]int, len(g.Sizes)), make([][]int, len(g.Sizes))
	for b, k := range g.Sizes {
		ws, err := newWhitenSample(sc.n, sc.rows, sc.cols, sc.chans, g, k, cmean, csd, c.Seed)
		if err != nil {
			return nil, err
		}
		samples[b], pats[b] = ws, make([]float64, ws.s*ws.kk)
		if ws.img != nil {
			byImage[b], first[b] = groupByImage(ws.img, sc.n)
		}
	}
	x := Images{Rows: sc.rows, Cols: sc.cols, Channels: channels}
	seen := 0
	err := streamRowsOf(ctx, src, sc, sc.n, &x, func(r int, _ []float64) error {
		d := x.Dim()
		for i := 0; i < r; i++ {
			img, pix := seen+i, x.Pix[i*d:(i+1)*d]
			for b, ws := range samples {
				p, kk := pats[b], ws.kk
				if ws.img == nil {
					for q := 0; q < ws.pos; q++ {
						j := img*ws.pos + q
						ws.patch(p[j*kk:(j+1)*kk], pix, q)
					}
					continue
				}
				for _, j := range byImage[b][first[b][img]:first[b][img+1]] {
					ws.patch(p[j*kk:(j+1)*kk], pix, ws.q[j])
				}
			}
		}
		seen += r
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*patchWhitening, len(samples))
	for b, ws := range samples {
		if out[b], err = ws.whitening(pats[b], g.WhitenEps); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// groupByImage returns the indices of img grouped by their value (a
// counting sort, stable): the indices whose image is i are
// order[first[i]:first[i+1]].
func groupByImage(img []int, n int) (order, first []int) {
	first = make([]int, n+1)
	for _, i := range img {
		first[i+1]++
	}
	for i := 0; i < n; i++ {
		first[i+1] += first[i]
	}
	next := slices.Clone(first[:n])
	order = make([]int, len(img))
	for j, i := range img {
		order[next[i]] = j
		next[i]++
	}
	return order, first
}
