package calib

import (
	"fmt"
	"math"
	"slices"
)

// Calibration maps a classifier's output scores s (its M least-squares
// outputs) to class probabilities: p = softmax(A s + b), A an M x M matrix
// and b M offsets. A temperature-scaled softmax is the map A = I / T,
// b = 0; a multinomial logistic read-out of the scores (Method
// "logistic") has any A and b. Fitted on images the model's output
// weights were not solved on, the map that gave the lower cross-fitted
// held-out log-loss is kept.
type Calibration struct {
	// Method is "temperature" or "logistic".
	Method string
	// Temperature is the fitted temperature T of the softmax(s / T) map
	// (the logistic read-out's starting point).
	Temperature float64
	// M is the number of classes the map takes.
	M int
	// A (M x M, row-major) and B (M) give a logistic map's logits
	// A s + B; nil for a temperature map, whose logits are s / T.
	A, B []float64
	// Held is the number of held-out images the map was fitted on.
	Held int
	// LogLoss, TemperatureLogLoss and LogisticLogLoss are the mean
	// held-out log-losses (natural log) of the two maps, each fitted on
	// one half of the held-out images and scored on the other; RawLogLoss
	// is the plain softmax of the raw scores (T = 1) on all of them.
	TemperatureLogLoss, LogisticLogLoss, RawLogLoss float64
}

// Logits writes the calibrated logits of one row of M scores to z.
func (c *Calibration) Logits(s, z []float64) {
	m := len(s)
	if c.A == nil {
		for k, v := range s {
			z[k] = v / c.Temperature
		}
		return
	}
	for k := 0; k < m; k++ {
		v := c.B[k]
		for j, x := range s {
			v += c.A[k*m+j] * x
		}
		z[k] = v
	}
}

// Probabilities returns the calibrated class probabilities of scores
// (N x M row-major), N x M row-major: each row sums to 1.
func (c *Calibration) Probabilities(scores []float64) []float64 {
	m := c.M
	out := make([]float64, len(scores))
	for i := 0; i+m <= len(scores); i += m {
		c.Logits(scores[i:i+m], out[i:i+m])
		SoftmaxInPlace(out[i : i+m])
	}
	return out
}

// Check reports whether c is a usable map of m classes, all but the
// finiteness of its matrix and offsets (the caller's check, with its
// error).
func (c *Calibration) Check(m int) error {
	switch {
	case c.Method != "temperature" && c.Method != "logistic":
		return fmt.Errorf("calibration method %q, want temperature or logistic", c.Method)
	case c.M != m:
		return fmt.Errorf("calibration map of %d classes for %d", c.M, m)
	case c.Method == "temperature" && (c.A != nil || c.B != nil):
		return fmt.Errorf("temperature calibration with a matrix")
	case c.Method == "logistic" && (m > MaxLogisticClasses || len(c.A) != m*m || len(c.B) != m):
		return fmt.Errorf("logistic calibration map of %d and %d values for %d classes (at most %d)", len(c.A), len(c.B), m, MaxLogisticClasses)
	case !(c.Temperature > 0) || math.IsInf(c.Temperature, 0):
		return fmt.Errorf("calibration temperature %v", c.Temperature)
	case c.Held < 1:
		return fmt.Errorf("calibration fitted on %d images", c.Held)
	}
	return nil
}

// SoftmaxInPlace replaces z by softmax(z), computed stably.
func SoftmaxInPlace(z []float64) {
	top := math.Inf(-1)
	for _, v := range z {
		top = math.Max(top, v)
	}
	var sum float64
	for k, v := range z {
		z[k] = math.Exp(v - top)
		sum += z[k]
	}
	for k := range z {
		z[k] /= sum
	}
}

// Softmax returns softmax(scores / t) row by row (N x m row-major): the
// plain softmax of uncalibrated scores at t = 1.
func Softmax(scores []float64, m int, t float64) []float64 {
	out := make([]float64, len(scores))
	for i := 0; i+m <= len(scores); i += m {
		for k := 0; k < m; k++ {
			out[i+k] = scores[i+k] / t
		}
		SoftmaxInPlace(out[i : i+m])
	}
	return out
}

// LogLoss returns the mean negative log-likelihood (natural log) of the
// labels under the probabilities p (N x m row-major); a probability below
// 1e-15 counts as 1e-15.
func LogLoss(p []float64, m int, labels []int) float64 {
	if len(labels) == 0 {
		return 0
	}
	var s float64
	for i, y := range labels {
		s -= math.Log(math.Max(p[i*m+y], 1e-15))
	}
	return s / float64(len(labels))
}

// Fit fits a calibration map of scores (N x m row-major, finite, N >= 4,
// m >= 2, labels in [0, m): the caller checks) to their labels: a
// temperature T (softmax(s / T)) and a multinomial logistic read-out
// (softmax(A s + b), fitted by L-BFGS with a ridge term pulling A towards
// I / T), each scored by the log-loss on one half of the images after
// fitting on the other (both halves, stratified by class), the better
// kept and refitted on all of them.
func Fit(scores []float64, labels []int, m int) *Calibration {
	n := len(labels)
	// Two halves, stratified: the images of each class alternate.
	var half [2][]int
	seen := make([]int, m)
	for i, y := range labels {
		half[seen[y]%2] = append(half[seen[y]%2], i)
		seen[y]++
	}
	var tLoss, lLoss float64
	for h := 0; h < 2; h++ {
		fit, test := half[h], half[1-h]
		if len(fit) == 0 || len(test) == 0 {
			continue
		}
		sf, yf := rowsOf(scores, labels, fit, m)
		st, yt := rowsOf(scores, labels, test, m)
		t := FitTemperature(sf, yf, m)
		tLoss += LogLoss(Softmax(st, m, t), m, yt) * float64(len(test))
		if m > MaxLogisticClasses {
			continue
		}
		lc := FitLogistic(sf, yf, m, t)
		lLoss += LogLoss(lc.Probabilities(st), m, yt) * float64(len(test))
	}
	t := FitTemperature(scores, labels, m)
	c := TemperatureMap(t, m)
	if m > MaxLogisticClasses {
		lLoss = math.Inf(1) // m^2 parameters: the temperature alone
	}
	if lLoss < tLoss {
		c = FitLogistic(scores, labels, m, t)
	}
	c.Held = n
	c.TemperatureLogLoss, c.LogisticLogLoss = tLoss/float64(n), lLoss/float64(n)
	c.RawLogLoss = LogLoss(Softmax(scores, m, 1), m, labels)
	return c
}

// rowsOf returns the scores and labels of the images idx.
func rowsOf(scores []float64, labels, idx []int, m int) ([]float64, []int) {
	s := make([]float64, 0, len(idx)*m)
	y := make([]int, 0, len(idx))
	for _, i := range idx {
		s = append(s, scores[i*m:(i+1)*m]...)
		y = append(y, labels[i])
	}
	return s, y
}

// TemperatureMap returns the map softmax(s / t) of m classes.
func TemperatureMap(t float64, m int) *Calibration {
	return &Calibration{Method: "temperature", Temperature: t, M: m}
}

// MaxLogisticClasses bounds the classes of a logistic read-out (m^2 + m
// parameters); more classes get a temperature map.
const MaxLogisticClasses = 100

// FitTemperature returns the temperature T minimising the log-loss of
// softmax(s / T). The loss is convex in the inverse temperature u = 1 / T,
// its derivative E_p[s] - s_y increasing: bisection on its sign over
// log u in [log 1e-4, log 1e6].
func FitTemperature(scores []float64, labels []int, m int) float64 {
	deriv := func(u float64) float64 {
		var d float64
		z := make([]float64, m)
		for i, y := range labels {
			row := scores[i*m : (i+1)*m]
			for k, v := range row {
				z[k] = u * v
			}
			SoftmaxInPlace(z)
			for k, v := range row {
				d += z[k] * v
			}
			d -= row[y]
		}
		return d
	}
	lo, hi := math.Log(1e-4), math.Log(1e6)
	if deriv(math.Exp(hi)) < 0 {
		return math.Exp(-hi) // separable: the sharpest map the bracket allows
	}
	if deriv(math.Exp(lo)) > 0 {
		return math.Exp(-lo)
	}
	for it := 0; it < 80 && hi-lo > 1e-10; it++ {
		mid := (lo + hi) / 2
		if deriv(math.Exp(mid)) > 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return math.Exp(-(lo + hi) / 2)
}

// logisticRidge is the ridge term, per image, pulling the logistic
// read-out's matrix towards the temperature map's I / T.
const logisticRidge = 1e-3

// FitLogistic fits softmax(A s + b) by L-BFGS on the mean log-loss plus
// logisticRidge ||A - I / t||^2 / 2, starting at the temperature map.
func FitLogistic(scores []float64, labels []int, m int, t float64) *Calibration {
	n := len(labels)
	k := m*m + m
	x0 := make([]float64, k)
	for q := 0; q < m; q++ {
		x0[q*m+q] = 1 / t
	}
	z := make([]float64, m)
	f := func(x, grad []float64) float64 {
		a, b := x[:m*m], x[m*m:]
		if grad != nil {
			clear(grad)
		}
		var loss float64
		for i, y := range labels {
			s := scores[i*m : (i+1)*m]
			for q := 0; q < m; q++ {
				v := b[q]
				for j, sj := range s {
					v += a[q*m+j] * sj
				}
				z[q] = v
			}
			top := slices.Max(z)
			var sum float64
			for q, v := range z {
				z[q] = math.Exp(v - top)
				sum += z[q]
			}
			loss -= math.Log(math.Max(z[y]/sum, 1e-300))
			if grad != nil {
				for q := range z {
					g := z[q] / sum
					if q == y {
						g--
					}
					for j, sj := range s {
						grad[q*m+j] += g * sj
					}
					grad[m*m+q] += g
				}
			}
		}
		loss /= float64(n)
		if grad != nil {
			for i := range grad {
				grad[i] /= float64(n)
			}
		}
		for i := 0; i < m*m; i++ {
			d := a[i] - x0[i]
			loss += logisticRidge * d * d / 2
			if grad != nil {
				grad[i] += logisticRidge * d
			}
		}
		return loss
	}
	x := lbfgs(f, x0, 300, 1e-9)
	return &Calibration{Method: "logistic", Temperature: t, M: m, A: slices.Clone(x[:m*m]), B: slices.Clone(x[m*m:])}
}
