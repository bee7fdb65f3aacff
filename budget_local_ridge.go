package scn

import (
	"context"
	"fmt"
	"math"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
)

// The ridge term of a budget on photos (issue 31, item 7: "the budget
// selects the ridge term along with L").
//
// A photo budget plans the number of filters (and so L) from the time; the
// ridge term is then chosen on a held-out share of the training images
// (photoValidation, stratified, drawn from the budget's seed), among
// photoRidges, and the output weights are those of every image at the
// chosen term. The filters and the pooled outputs' standardisation saw
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

// photoValidation is the share of the training images a photo budget holds
// out to choose the ridge term.
const photoValidation = 0.1

// photoRidges are the ridge terms a photo budget chooses from, in the
// order they are scored (a clock that runs short cuts the grid after the
// first ones): the presets' PhotoRidge (100, measured best at 128 filters
// on natural-images), then up to ten times it for the larger L a budget
// fits, then below it (on natural-images at 512 filters 10% held out gave
// 91.3, 92.0, 92.2 and 92.0% at 30, 100, 300 and 1000).
var photoRidges = []float64{100, 300, 1000, 30}

// photoRidgeWork returns the multiply-adds of the dual ridge choice on n
// images of l pooled outputs with held of them held out, ridges terms and m
// outputs: K's lower triangle, a factor per term and the refit's factor,
// the triangular solves and the products with T and H.
func photoRidgeWork(n, held, l, m, ridges int) float64 {
	pre, step, final := photoChoiceSteps(n, held, l, m, true)
	return pre + float64(ridges)*step + final
}

// photoChoiceSteps returns the multiply-adds of the ridge choice's parts,
// the dual way or the primal: what comes before the first term (K, or the
// held-out images' products), each term, and the refit on every image.
func photoChoiceSteps(n, held, l, m int, dual bool) (pre, step, final float64) {
	nf, tf, hf, lf, mf := float64(n), float64(n-held), float64(held), float64(l), float64(m)
	if dual {
		return nf*nf*lf/2 + nf*lf, tf*tf*tf/3 + 2*tf*tf*mf + hf*tf*mf, nf*nf*nf/3 + 2*nf*nf*mf + 2*nf*lf*mf
	}
	return hf * lf * lf, lf*lf*lf/3 + 2*lf*lf*mf + lf*lf + hf*lf*mf, lf*lf*lf/3 + 2*lf*lf*mf
}

// photoPrimalWork returns the multiply-adds of the ridge choice in the
// primal (Config.selectLocal: the held-out images' products taken out of
// the fit's Gram sums, a factor of L^3 / 3 per ridge term and one for the
// refit), the cheaper way while L is below about N.
func photoPrimalWork(held, l, m, ridges int) float64 {
	pre, step, final := photoChoiceSteps(0, held, l, m, false)
	return pre + float64(ridges)*step + final
}

// photoDual reports whether the ridge choice goes the dual way: when its
// work is less than the primal's.
func photoDual(n, held, l, m, ridges int) bool {
	return photoRidgeWork(n, held, l, m, ridges) < photoPrimalWork(held, l, m, ridges)
}

// photoChoiceWork is the work of the ridge choice the cheaper way.
func photoChoiceWork(n, held, l, m, ridges int) float64 {
	return min(photoRidgeWork(n, held, l, m, ridges), photoPrimalWork(held, l, m, ridges))
}

// photoChoiceBytes is the bytes the ridge choice adds to the fit's: the
// dual's (photoRidgeBytes) once the fit's L x L sums are freed, or the
// primal's three L x L buffers.
func photoChoiceBytes(n, held, l, m, ridges int) int64 {
	if photoDual(n, held, l, m, ridges) {
		return max(0, photoRidgeBytes(n, held, l)-8*int64(l)*int64(l))
	}
	return 3 * 8 * int64(l) * int64(l)
}

// photoRidgeBytes returns the bytes the dual ridge choice allocates: the
// pooled outputs in float64 (n x l), K (n x n) and a training part's factor.
func photoRidgeBytes(n, held, l int) int64 {
	t := int64(n - held)
	return 8 * (int64(n)*int64(l) + int64(n)*int64(n) + t*t)
}

// moreRidges, when a ridge choice has scored its first i terms of the grid
// (i >= 1) after done multiply-adds (the model's count: photoRidgeWork's
// terms), says whether the next term and the refit (next multiply-adds)
// go ahead; the choice is then among the terms scored. nil: every term.
type moreRidges func(i int, done, next float64) bool

// photoRidge chooses the ridge term of the local fit lf among ridges on the
// images held (train being the rest), the dual way (dualRidge) or the
// primal way (primalRidge), whichever costs less, and returns what they
// return.
func photoRidge(ctx context.Context, lf *localFit, t []float64, train, held []int, ridges []float64, classify bool, more moreRidges) ([]float64, float64, []Score, int, error) {
	eng := lf.solver()
	if photoDual(eng.N, len(held), eng.L, eng.M, len(ridges)) {
		// Only the pooled outputs are needed now: the fit's Gram sums and
		// factor (L^2 float64) go before the dual solves allocate theirs.
		eng.G, eng.GD = nil, nil
		return dualRidge(ctx, eng, t, eng.M, train, held, ridges, classify, more)
	}
	return primalRidge(ctx, eng, t, eng.M, held, ridges, classify, more)
}

// ridgeCurve scores the ridge terms in order on the held-out targets th
// (m outputs a row) and returns every scored term's Score and the index of
// the best (Score.better). predict returns the held-out outputs at a term
// (a buffer it may reuse); more, given the terms scored, the multiply-adds
// done so far (starting at done, step more a term) and those of the next
// term with the refit (step + final), says whether to go on.
func ridgeCurve(ctx context.Context, ridges []float64, more moreRidges, done, step, final float64, l int, th []float64, m int, classify bool, predict func(r float64) ([]float64, error)) (curve []Score, best int, err error) {
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
		sc := Score{Nodes: l, Ridge: r, RMSE: RMSE(y, th)}
		if classify {
			sc.Accuracy = Accuracy(ArgMax(y, m), ArgMax(th, m))
		}
		curve = append(curve, sc)
		if best < 0 || sc.better(curve[best], classify) {
			best = len(curve) - 1
		}
	}
	return curve, best, nil
}

// primalRidge is dualRidge in the primal, from the fit's Gram sums (as
// Config.selectLocal: G and H^T T less the held-out images' own products,
// a factor of G + a I per term); the output weights of every image are the
// engine's solve at the chosen term.
func primalRidge(ctx context.Context, eng *lsq.Gram, t []float64, m int, held []int, ridges []float64, classify bool, more moreRidges) (beta []float64, trainRMSE float64, curve []Score, best int, err error) {
	return primalRidgeOf(ctx, eng, t, m, held, ridges, classify, more, false)
}

// primalRidgeOf is primalRidge with the held-out images' pooled outputs
// held held x L (byColumns false: their products by linalg.Dgemm on them
// transposed, the photo budget's and earlier grey plans' bits) or L x held
// (true: H_h^T H_h by linalg.GemmNT64, several times faster at large L,
// greyRidgeChoice).
func primalRidgeOf(ctx context.Context, eng *lsq.Gram, t []float64, m int, held []int, ridges []float64, classify bool, more moreRidges, byColumns bool) (beta []float64, trainRMSE float64, curve []Score, best int, err error) {
	l, nh := eng.L, len(held)
	if nh < 1 || nh >= eng.N || len(ridges) == 0 {
		return nil, 0, nil, 0, fmt.Errorf("scn: ridge choice: %d held-out images of %d, %d ridge terms", nh, eng.N, len(ridges))
	}
	hh, th := heldRows(eng, t, m, held, byColumns)
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
	done, step, final := photoChoiceSteps(eng.N, nh, l, m, false)
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

// dualRidge chooses the ridge term among ridges on the images held (the
// rest, train, being the training part) from the pooled outputs eng holds
// and the targets t (N x m), and returns the output weights of every image
// at the chosen term (l x m), the training RMSE of those weights, every
// term's held-out score and the index of the chosen one (Score.better:
// accuracy, then RMSE, then the larger term). train and held partition
// 0..N-1.
func dualRidge(ctx context.Context, eng *lsq.Gram, t []float64, m int, train, held []int, ridges []float64, classify bool, more moreRidges) (beta []float64, trainRMSE float64, curve []Score, best int, err error) {
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
	done, step, final := photoChoiceSteps(n, nh, l, m, true)
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
