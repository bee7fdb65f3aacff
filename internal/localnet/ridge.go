package localnet

import (
	"context"
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/holdout"
	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
)

// The ridge term of a budget on photos (issue 31, item 7: "the budget
// selects the ridge term along with L").
//
// A photo budget plans the number of filters (and so L) from the time; the
// ridge term is then chosen on a held-out share of the training images
// (the root's photoValidation, stratified, drawn from the budget's seed),
// among the root's photoRidges, and the output weights are those of every
// image at the chosen term. The filters and the pooled outputs' standardisation saw
// every image (the filters are random: only the standardisation's moments
// include the held-out images), the output weights they are scored with
// did not.
//
// The solves are dual: with H (N x L) the pooled outputs and K = H H^T,
// the ridge solution is (H^T H + a I)^-1 H^T T = H^T (K + a I)^-1 T. A
// budget's L passes N on most photo sets (natural-images at 60 s: L = 9216
// pooled outputs of 5522 images; hymenoptera: thousands of outputs of 245
// images), and the dual costs one product K of N^2 L / 2 multiply-adds and
// then a factor of N_train^3 / 3 per ridge term, where each primal factor
// costs L^3 / 3 (at L = 9216 and N = 5522 the grid of four terms and the
// refit cost about a third of one primal factor). Everything is float64,
// from the pooled outputs the fit's engine holds (rounded to bfloat16 with
// the presets' bfloat16 Gram products, as its own solve sees them), so the
// weights are the exact ridge solution of those outputs at the chosen term.

// The ridge choice of a budget's local nodes on grey images
// (internal/budgetflow's grey.go).
// Grey sets are large (tens of thousands of images) and their budgets' L
// stays below N, so the choice goes the primal way (PrimalRidge), whose
// largest part is the held-out images' product H_h^T H_h (held x L^2
// multiply-adds: 1.3e11 at L = 4608 with 6000 images held out). PrimalRidge
// forms it with linalg.Dgemm on H_h transposed, which ran at a quarter of
// the Cholesky factor's rate on the 2-core machine (and took most of a
// minute of a 60 s budget on Fashion-MNIST at L = 4608); ChooseRidgeGrey
// forms it as
// linalg.GemmNT64 of H_h^T held row-wise (the dual choice's kernel, fixed
// chunks), otherwise as PrimalRidge. A photo budget keeps PrimalRidge, as
// do the grey plans of earlier files (their replays' bytes stay as they
// were): ChooseRidgeGrey is taken for a plan that records a probe and may
// grow (BudgetPlan.MaxNodes past Nodes).

// HeldRows returns the engine's pooled outputs on the images idx and
// their targets (lsq.Gram.HeldRows).
func HeldRows(eng *lsq.Gram, t []float64, m int, idx []int, transposed bool) (h, th []float64) {
	return eng.HeldRows(t, m, idx, transposed)
}

// RidgeWork returns the multiply-adds of the dual ridge choice on n
// images of l pooled outputs with held of them held out, ridges terms and m
// outputs: K's lower triangle, a factor per term and the refit's factor,
// the triangular solves and the products with T and H.
func RidgeWork(n, held, l, m, ridges int) float64 {
	pre, step, final := ChoiceSteps(n, held, l, m, true)
	return pre + float64(ridges)*step + final
}

// ChoiceSteps returns the multiply-adds of the ridge choice's parts,
// the dual way or the primal: what comes before the first term (K, or the
// held-out images' products), each term, and the refit on every image.
func ChoiceSteps(n, held, l, m int, dual bool) (pre, step, final float64) {
	nf, tf, hf, lf, mf := float64(n), float64(n-held), float64(held), float64(l), float64(m)
	if dual {
		return nf*nf*lf/2 + nf*lf, tf*tf*tf/3 + 2*tf*tf*mf + hf*tf*mf, nf*nf*nf/3 + 2*nf*nf*mf + 2*nf*lf*mf
	}
	return hf * lf * lf, lf*lf*lf/3 + 2*lf*lf*mf + lf*lf + hf*lf*mf, lf*lf*lf/3 + 2*lf*lf*mf
}

// PrimalWork returns the multiply-adds of the ridge choice in the
// primal (Config.selectLocal: the held-out images' products taken out of
// the fit's Gram sums, a factor of L^3 / 3 per ridge term and one for the
// refit), the cheaper way while L is below about N.
func PrimalWork(held, l, m, ridges int) float64 {
	pre, step, final := ChoiceSteps(0, held, l, m, false)
	return pre + float64(ridges)*step + final
}

// Dual reports whether the ridge choice goes the dual way: when its
// work is less than the primal's.
func Dual(n, held, l, m, ridges int) bool {
	return RidgeWork(n, held, l, m, ridges) < PrimalWork(held, l, m, ridges)
}

// ChoiceWork is the work of the ridge choice the cheaper way.
func ChoiceWork(n, held, l, m, ridges int) float64 {
	return min(RidgeWork(n, held, l, m, ridges), PrimalWork(held, l, m, ridges))
}

// ChoiceBytes is the bytes the ridge choice adds to the fit's: the
// dual's (RidgeBytes) once the fit's L x L sums are freed, or the
// primal's three L x L buffers.
func ChoiceBytes(n, held, l, m, ridges int) int64 {
	if Dual(n, held, l, m, ridges) {
		return max(0, RidgeBytes(n, held, l)-8*int64(l)*int64(l))
	}
	return 3 * 8 * int64(l) * int64(l)
}

// RidgeBytes returns the bytes the dual ridge choice allocates: the
// pooled outputs in float64 (n x l), K (n x n) and a training part's factor.
func RidgeBytes(n, held, l int) int64 {
	t := int64(n - held)
	return 8 * (int64(n)*int64(l) + int64(n)*int64(n) + t*t)
}

// MoreRidges, when a ridge choice has scored its first i terms of the grid
// (i >= 1) after done multiply-adds (the model's count: RidgeWork's
// terms), says whether the next term and the refit (next multiply-adds)
// go ahead; the choice is then among the terms scored. nil: every term.
type MoreRidges func(i int, done, next float64) bool

// ChooseRidge chooses the ridge term of a local fit (its engine eng: the
// fit's Solver) among ridges on the
// images held (train being the rest), the dual way (DualRidge) or the
// primal way (PrimalRidge), whichever costs less, and returns what they
// return.
func ChooseRidge(ctx context.Context, eng *lsq.Gram, t []float64, train, held []int, ridges []float64, classify bool, more MoreRidges) ([]float64, float64, []holdout.Point, int, error) {
	if Dual(eng.N, len(held), eng.L, eng.M, len(ridges)) {
		// Only the pooled outputs are needed now: the fit's Gram sums and
		// factor (L^2 float64) go before the dual solves allocate theirs.
		eng.G, eng.GD = nil, nil
		return DualRidge(ctx, eng, t, eng.M, train, held, ridges, classify, more)
	}
	return PrimalRidge(ctx, eng, t, eng.M, held, ridges, classify, more)
}

// ridgeCurve scores the ridge terms in order on the held-out targets th
// (m outputs a row) and returns every scored term's holdout.Point and the
// index of the best (holdout.Point.Better). predict returns the held-out
// outputs at a term (a buffer it may reuse); more, given the terms scored, the multiply-adds
// done so far (starting at done, step more a term) and those of the next
// term with the refit (step + final), says whether to go on.
func ridgeCurve(ctx context.Context, ridges []float64, more MoreRidges, done, step, final float64, l int, th []float64, m int, classify bool, predict func(r float64) ([]float64, error)) (curve []holdout.Point, best int, err error) {
	best = -1
	for i, r := range ridges {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if i > 0 && more != nil && !more(i, done, step+final) {
			break
		}
		done += step
		y, err := predict(r)
		if err != nil {
			return nil, 0, fmt.Errorf("scn: ridge %g: %w", r, err)
		}
		curve, best = holdout.AppendScored(curve, best, l, r, y, th, m, classify)
	}
	return curve, best, nil
}

// PrimalRidge is DualRidge in the primal, from the fit's Gram sums (as
// Config.selectLocal: G and H^T T less the held-out images' own products,
// a factor of G + a I per term); the output weights of every image are the
// engine's solve at the chosen term.
func PrimalRidge(ctx context.Context, eng *lsq.Gram, t []float64, m int, held []int, ridges []float64, classify bool, more MoreRidges) (beta []float64, trainRMSE float64, curve []holdout.Point, best int, err error) {
	return PrimalRidgeOf(ctx, eng, t, m, held, ridges, classify, more, false)
}

// PrimalRidgeOf is PrimalRidge with the held-out images' pooled outputs
// held held x L (byColumns false: their products by linalg.Dgemm on them
// transposed, the photo budget's and earlier grey plans' bits) or L x held
// (true: H_h^T H_h by linalg.GemmNT64, several times faster at large L,
// ChooseRidgeGrey).
func PrimalRidgeOf(ctx context.Context, eng *lsq.Gram, t []float64, m int, held []int, ridges []float64, classify bool, more MoreRidges, byColumns bool) (beta []float64, trainRMSE float64, curve []holdout.Point, best int, err error) {
	l, nh := eng.L, len(held)
	if nh < 1 || nh >= eng.N || len(ridges) == 0 {
		return nil, 0, nil, 0, fmt.Errorf("scn: ridge choice: %d held-out images of %d, %d ridge terms", nh, eng.N, len(ridges))
	}
	hh, th := HeldRows(eng, t, m, held, byColumns)
	g, ht := eng.NormalDense(l)
	// predict sets y (nh x m) to the held-out outputs of weights b.
	var predict func(b, y []float64)
	if byColumns {
		linalg.GemmNT64(l, l, nh, -1, hh, nh, hh, nh, 1, g, l)
		linalg.Dgemm(false, false, l, m, nh, -1, hh, nh, th, m, 1, ht, m)
		predict = func(b, y []float64) { linalg.Dgemm(true, false, nh, m, l, 1, hh, nh, b, m, 0, y, m) }
	} else {
		linalg.Dgemm(true, false, l, l, nh, -1, hh, l, hh, l, 1, g, l)
		linalg.Dgemm(true, false, l, m, nh, -1, hh, l, th, m, 1, ht, m)
		predict = func(b, y []float64) { linalg.Dgemm(false, false, nh, m, l, 1, hh, l, b, m, 0, y, m) }
	}
	a := make([]float64, l*l)
	y := make([]float64, nh*m)
	done, step, final := ChoiceSteps(eng.N, nh, l, m, false)
	curve, best, err = ridgeCurve(ctx, ridges, more, done, step, final, l, th, m, classify, func(r float64) ([]float64, error) {
		copy(a, g)
		for i := 0; i < l; i++ {
			a[i*l+i] += r
		}
		b := append([]float64(nil), ht...)
		if err := lsq.SolveFlat(a, l, b, m, r); err != nil {
			return nil, err
		}
		predict(b, y)
		return y, nil
	})
	if err != nil {
		return nil, 0, nil, 0, err
	}
	a, g, hh = nil, nil, nil
	if beta, err = eng.Solve(l, curve[best].Ridge); err != nil {
		return nil, 0, nil, 0, err
	}
	res := make([]float64, eng.N*m)
	eng.Residual(l, beta, res)
	var ss float64
	for _, v := range res {
		ss += v * v
	}
	return beta, math.Sqrt(ss / float64(len(res))), curve, best, nil
}

// DualRidge chooses the ridge term among ridges on the images held (the
// rest, train, being the training part) from the pooled outputs eng holds
// and the targets t (N x m), and returns the output weights of every image
// at the chosen term (l x m), the training RMSE of those weights, every
// term's held-out score and the index of the chosen one
// (holdout.Point.Better: accuracy, then RMSE, then the larger term). train and held partition
// 0..N-1.
func DualRidge(ctx context.Context, eng *lsq.Gram, t []float64, m int, train, held []int, ridges []float64, classify bool, more MoreRidges) (beta []float64, trainRMSE float64, curve []holdout.Point, best int, err error) {
	n, l := eng.N, eng.L
	nt, nh := len(train), len(held)
	if nt+nh != n || nt < 1 || nh < 1 || len(ridges) == 0 {
		return nil, 0, nil, 0, fmt.Errorf("scn: ridge choice: %d training and %d held-out images of %d, %d ridge terms", nt, nh, n, len(ridges))
	}
	// The training part first, then the held-out images: K's leading block
	// is the training part's, and its factor is read from that block.
	order := append(append(make([]int, 0, n), train...), held...)
	pos := make([]int, n)
	for k, i := range order {
		pos[i] = k
	}
	h := make([]float64, n*l)
	for _, sh := range eng.Shards {
		r := sh.Hi - sh.Lo
		const tile = 64
		for i0 := 0; i0 < r; i0 += tile {
			i1 := min(r, i0+tile)
			for j := 0; j < l; j++ {
				col := sh.H[j*r : (j+1)*r]
				for i := i0; i < i1; i++ {
					h[pos[sh.Lo+i]*l+j] = float64(col[i])
				}
			}
		}
	}
	tp := make([]float64, n*m)
	for k, i := range order {
		copy(tp[k*m:(k+1)*m], t[i*m:(i+1)*m])
	}
	// K's lower triangle, by row blocks (each block's product also fills
	// the upper part of its diagonal block, which nothing reads).
	k := make([]float64, n*n)
	const rowBlock = 384
	for i0 := 0; i0 < n; i0 += rowBlock {
		if err := ctx.Err(); err != nil {
			return nil, 0, nil, 0, err
		}
		b := min(rowBlock, n-i0)
		linalg.GemmNT64(b, i0+b, l, 1, h[i0*l:], l, h, l, 0, k[i0*n:], n)
	}
	a := make([]float64, nt*nt)
	th := tp[nt*m:]
	y := make([]float64, nh*m)
	done, step, final := ChoiceSteps(n, nh, l, m, true)
	curve, best, err = ridgeCurve(ctx, ridges, more, done, step, final, l, th, m, classify, func(r float64) ([]float64, error) {
		for i := 0; i < nt; i++ {
			copy(a[i*nt:i*nt+i+1], k[i*n:i*n+i+1])
			a[i*nt+i] += r
		}
		alpha := append([]float64(nil), tp[:nt*m]...)
		if err := lsq.SolveFlat(a, nt, alpha, m, r); err != nil {
			return nil, err
		}
		// The held-out images' outputs: H_h H_t^T alpha, H_h H_t^T being
		// K's rows nt.. and its first nt columns.
		linalg.Dgemm(false, false, nh, m, nt, 1, k[nt*n:], n, alpha, m, 0, y, m)
		return y, nil
	})
	if err != nil {
		return nil, 0, nil, 0, err
	}
	a = nil
	// Every image at the chosen term, factored in K's place.
	r := curve[best].Ridge
	for i := 0; i < n; i++ {
		k[i*n+i] += r
	}
	alpha := append([]float64(nil), tp...)
	if err := lsq.SolveFlat(k, n, alpha, m, r); err != nil {
		return nil, 0, nil, 0, fmt.Errorf("scn: ridge %g on every image: %w", r, err)
	}
	k = nil
	beta = make([]float64, l*m)
	linalg.Dgemm(true, false, l, m, n, 1, h, l, alpha, m, 0, beta, m)
	yall := make([]float64, n*m)
	linalg.Dgemm(false, false, n, m, l, 1, h, l, beta, m, 0, yall, m)
	var ss float64
	for i, v := range yall {
		d := tp[i] - v
		ss += d * d
	}
	return beta, math.Sqrt(ss / float64(n*m)), curve, best, nil
}

// ChooseRidgeGrey is ChooseRidge for a grey budget: the dual way when it
// costs less, otherwise GreyPrimalRidge.
func ChooseRidgeGrey(ctx context.Context, eng *lsq.Gram, t []float64, train, held []int, ridges []float64, classify bool, more MoreRidges) ([]float64, float64, []holdout.Point, int, error) {
	if Dual(eng.N, len(held), eng.L, eng.M, len(ridges)) {
		return ChooseRidge(ctx, eng, t, train, held, ridges, classify, more)
	}
	return GreyPrimalRidge(ctx, eng, t, eng.M, held, ridges, classify, more)
}

// GreyPrimalRidge is PrimalRidge with the held-out images' products
// formed from their pooled outputs held L x held (GemmNT64).
func GreyPrimalRidge(ctx context.Context, eng *lsq.Gram, t []float64, m int, held []int, ridges []float64, classify bool, more MoreRidges) (beta []float64, trainRMSE float64, curve []holdout.Point, best int, err error) {
	return PrimalRidgeOf(ctx, eng, t, m, held, ridges, classify, more, true)
}
