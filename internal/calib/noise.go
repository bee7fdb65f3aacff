package calib

import (
	"math"
	"math/rand/v2"
	"slices"
)

// ECENoise is the expected calibration error that a perfectly calibrated
// model would show on the same images: the ECE of probabilities p (the
// same bins) against labels drawn from p itself, over Draws draws. It is
// the estimator's own noise on a test set of that size and confidence
// distribution: an observed ECE within it cannot be told from a
// calibrated model's.
type ECENoise struct {
	Draws  int     `json:"draws"`
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
	P95    float64 `json:"p95"`
}

// CalibratedECE returns the ECENoise of probabilities p (N x m row-major)
// with the given number of equal-width bins (15 if bins < 1) over draws
// draws (200 if draws < 1), deterministic in seed. Only the top
// probability matters: with labels drawn from p, the top class is right
// with probability equal to it.
func CalibratedECE(p []float64, m, bins, draws int, seed uint64) ECENoise {
	if bins < 1 {
		bins = 15
	}
	if draws < 1 {
		draws = 200
	}
	out := ECENoise{Draws: draws}
	if m < 1 {
		return out
	}
	n := len(p) / m
	if n == 0 {
		return out
	}
	conf := make([]float64, n)
	bin := make([]int, n)
	confSum := make([]float64, bins)
	for i := range conf {
		conf[i] = slices.Max(p[i*m : (i+1)*m])
		bin[i] = max(min(int(conf[i]*float64(bins)), bins-1), 0)
		confSum[bin[i]] += conf[i]
	}
	rng := rand.New(rand.NewPCG(seed, 0xece))
	eces := make([]float64, draws)
	right := make([]float64, bins)
	for d := range eces {
		clear(right)
		for i, c := range conf {
			if rng.Float64() < c {
				right[bin[i]]++
			}
		}
		var e float64
		for b := range right {
			e += math.Abs(right[b] - confSum[b])
		}
		eces[d] = e / float64(n)
	}
	var sum float64
	for _, e := range eces {
		sum += e
	}
	slices.Sort(eces)
	q := func(f float64) float64 { return eces[min(int(math.Ceil(f*float64(draws)))-1, draws-1)] }
	out.Mean, out.Median, out.P90, out.P95 = sum/float64(draws), q(0.5), q(0.9), q(0.95)
	return out
}
