package streamfit

import (
	"context"
	"slices"

	"github.com/scn2d/scn/internal/cfgerr"
	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/local"
)

// Shape is what every shard of a stream shares: the images' rows, columns
// and channels, the outputs and the class names (nil for a regression).
type Shape struct {
	Rows, Cols, Chans, M int
	Classes              []string
}

// Check refuses the shard named name of shape o unlike s (the first
// shard's): a cfgerr.DataError that names it.
func (s Shape) Check(name string, o Shape) error {
	switch {
	case o.Rows != s.Rows || o.Cols != s.Cols || o.Chans != s.Chans:
		return cfgerr.Data("%s: images of %d x %d x %d, the earlier shards' are %d x %d x %d", name, o.Chans, o.Rows, o.Cols, s.Chans, s.Rows, s.Cols)
	case o.M != s.M:
		return cfgerr.Data("%s: %d outputs, the earlier shards have %d", name, o.M, s.M)
	case !slices.Equal(o.Classes, s.Classes) || (o.Classes == nil) != (s.Classes == nil):
		return cfgerr.Data("%s: classes %q, the earlier shards' are %q", name, o.Classes, s.Classes)
	}
	return nil
}

// Shard is one shard of a stream as the scans read it: n images (pix, n x
// Rows*Cols*Chans, Channels the images' own channel field) and their
// targets (t, n x M).
type Shard struct {
	Name string
	Shape
	Channels int
	Pix      []float32
	T        []float64
	N        int
}

// Shards reads a stream once, calling each with its shards in order (each
// one checked as a set of images and targets by the caller), and returns
// the first error each or the reading returns.
type Shards func(each func(sh Shard) error) error

// Scan is what the first pass of a streamed fit learns.
type Scan struct {
	Shape              // the first shard's (every shard's)
	Channels int       // the images' channel field
	N        int       // the images
	Mean     []float32 // the mean image (with standardisation), else nil
	TT       []float64 // T_q^T T_q per output
	HeadPix  []float32 // the first images (drive.Scan's)
	HeadT    []float64 // and their targets
}

// first returns the scan of a stream whose first shard is sh (its shape).
func first(sh Shard) *Scan {
	return &Scan{Shape: Shape{Rows: sh.Rows, Cols: sh.Cols, Chans: sh.Chans, M: sh.M, Classes: slices.Clone(sh.Classes)}, Channels: sh.Channels}
}

// ScanGlobal is the first pass of a streamed fit of global nodes: every
// shard checked against the first, the images counted, the mean image
// summed (with standardize), T_q^T T_q summed in image order and the
// first images kept (drive.Scan).
func ScanGlobal(shards Shards, standardize bool) (*Scan, error) {
	var sc *Scan
	var sums *drive.Scan
	err := shards(func(sh Shard) error {
		if sc == nil {
			sc = first(sh)
			sums = drive.NewScan(sh.Rows*sh.Cols*sh.Chans, sh.M, standardize)
		}
		if err := sc.Check(sh.Name, sh.Shape); err != nil {
			return err
		}
		sums.Add(sh.Pix, sh.T, sh.N, sh.Rows*sh.Cols*sh.Chans, sh.M)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if sc == nil || sums.N == 0 {
		return nil, cfgerr.Data("the stream holds no image")
	}
	sc.N, sc.TT = sums.N, sums.TT
	sc.HeadPix, sc.HeadT = sums.HeadPix, sums.HeadT
	if sums.Mean != nil {
		sc.Mean = sums.Mean.Mean()
	}
	return sc, nil
}

// ScanLocal is the first pass of a streamed local fit: the checks and
// counts of ScanGlobal, T_q^T T_q, and the planes' means and deviations
// (local.Moments, as a fit in memory forms them).
func ScanLocal(shards Shards) (sc *Scan, mean, sd []float64, err error) {
	var mo *local.Moments
	err = shards(func(sh Shard) error {
		if sc == nil {
			sc = first(sh)
			sc.TT = make([]float64, sh.M)
			mo = local.NewMoments(sc.Chans, sh.Rows*sh.Cols)
		}
		if err := sc.Check(sh.Name, sh.Shape); err != nil {
			return err
		}
		n, m := sh.N, sh.M
		mo.Add(sh.Pix, n)
		for i := 0; i < n; i++ {
			for q := 0; q < m; q++ {
				t := sh.T[i*m+q]
				sc.TT[q] += t * t
			}
		}
		sc.N += n
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	if sc == nil || sc.N == 0 {
		return nil, nil, nil, cfgerr.Data("the stream holds no image")
	}
	mean, sd = mo.Result()
	return sc, mean, sd, nil
}

// Cut cuts n images into shards of the given sizes in turn (the last size
// repeated to the end; none: shards of 1 image), calling f with the k-th
// shard's images [lo, hi) in order; ctx is checked before each shard.
func Cut(ctx context.Context, n int, sizes []int, f func(k, lo, hi int) error) error {
	for lo, k := 0, 0; lo < n; k++ {
		size := 1
		if len(sizes) > 0 {
			size = max(1, sizes[min(k, len(sizes)-1)])
		}
		hi := min(n, lo+size)
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := f(k, lo, hi); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}
