package localnet

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/cfgerr"
	"github.com/scn2d/scn/internal/lsq"
	"gonum.org/v1/gonum/floats"
)

// Data is a local fit's training set: n images of rows x cols x ch (ch >=
// 1) and their targets t (n x m, row-major), and how the block engine
// forms its Gram products (Float32Gram, BF16Gram: scn.Config's).
type Data struct {
	X                     []float32
	N, Rows, Cols, Ch     int
	T                     []float64
	M                     int
	Float32Gram, BF16Gram bool
}

// Result is a local fit's outcome (Run): the fit, its engine, why it
// stopped, and, once a filter was added, the output weights (Eng.L x m)
// and the training RMSE of the images as they are.
type Result struct {
	Fit       *Fit
	Eng       *lsq.Gram
	Stop      Stop
	Beta      []float64
	TrainRMSE float64
}

// Run fits the local nodes of geometry g (checked against the images) on
// d: the planes' moments, the block engine, the filters (Fit.Grow), the
// sums of the augmented copies of aug (nil: none; not when Grow failed),
// and the output weights at opt.Ridge. A nil Result comes with an error
// that is the fit's (a tolerance the data meet before any node, a
// failed solve or augmentation); a Result without filters (Eng.L == 0)
// with Grow's error, if any, for the caller to report; otherwise the
// error is the cancellation that ended the fit early (the Result then
// holds the partial fit, Stop Cancelled if augmentation was cut short).
func Run(ctx context.Context, opt Options, g *Geometry, d Data, aug *augment.Spec, rng *rand.Rand, progress func(Step)) (*Result, error) {
	cmean, csd := PlaneMoments(d.X, d.N, d.Ch, d.Rows*d.Cols)
	n := d.N
	eng := lsq.NewGram(d.T, n, d.M, opt.Ridge, d.Float32Gram || d.BF16Gram, g.Outputs())
	eng.BF16 = d.BF16Gram
	lf := NewFit(opt, g, d.X, n, d.Rows, d.Cols, d.Ch, d.M, cmean, csd, rng)
	lf.Start(eng)
	if opt.Supervised {
		if rmse := lf.RMSE(); rmse <= opt.Tolerance {
			return nil, fmt.Errorf("%w: Tolerance = %g, but the training RMSE is %.4g before any node: nothing to fit", cfgerr.ErrConfig, opt.Tolerance, rmse)
		}
	}
	stop, err := lf.Grow(ctx, progress)
	r := &Result{Fit: lf, Eng: eng, Stop: stop}
	if eng.L == 0 {
		return r, err
	}
	t0 := time.Now()
	if aug != nil && err == nil {
		if aerr := lf.AugmentSums(ctx, d.T, augment.MovesFrom(aug.Flip, aug.Shift, aug.Copies, 0, n, opt.Seed), aug.Extra()); aerr != nil {
			if ctx.Err() == nil {
				return nil, aerr
			}
			// Interrupted: the output weights of the images as they are
			// (a partial model, recorded without augmentation).
			r.Stop, err = Cancelled, aerr
		}
	}
	beta, serr := lf.Solver().Solve(eng.L, opt.Ridge)
	if serr != nil {
		return nil, serr
	}
	lf.Prof.Solve = time.Since(t0)
	res := make([]float64, n*d.M)
	eng.Residual(eng.L, beta, res)
	r.Beta, r.TrainRMSE = beta, math.Sqrt(floats.Dot(res, res)/float64(n*d.M))
	return r, err
}
