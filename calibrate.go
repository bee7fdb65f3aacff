package scn

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Calibration maps a classifier's output scores s (its M least-squares
// outputs, Model.Predict) to class probabilities: p = softmax(A s + b),
// A an M x M matrix and b M offsets. A temperature-scaled softmax is the
// map A = I / T, b = 0; a multinomial logistic read-out of the scores
// (Method "logistic") has any A and b. Fitted on images the model's
// output weights were not solved on (Config.Select's hold-out or folds),
// the map that gave the lower cross-fitted held-out log-loss is kept.
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

// ErrUncalibrated is wrapped by the error of Model.Probabilities for a
// model without a calibration map (a regression model, or one fitted or
// saved without calibration).
var ErrUncalibrated = errors.New("scn: the model is not calibrated")

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
		softmaxInPlace(out[i : i+m])
	}
	return out
}

// softmaxInPlace replaces z by softmax(z), computed stably.
func softmaxInPlace(z []float64) {
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
		softmaxInPlace(out[i : i+m])
	}
	return out
}

// check reports whether c is a usable map of m classes.
func (c *Calibration) check(m int) error {
	switch {
	case c.Method != "temperature" && c.Method != "logistic":
		return fmt.Errorf("calibration method %q, want temperature or logistic", c.Method)
	case c.M != m:
		return fmt.Errorf("calibration map of %d classes for %d", c.M, m)
	case c.Method == "temperature" && (c.A != nil || c.B != nil):
		return fmt.Errorf("temperature calibration with a matrix")
	case c.Method == "logistic" && (m > maxLogisticClasses || len(c.A) != m*m || len(c.B) != m):
		return fmt.Errorf("logistic calibration map of %d and %d values for %d classes (at most %d)", len(c.A), len(c.B), m, maxLogisticClasses)
	case !(c.Temperature > 0) || math.IsInf(c.Temperature, 0):
		return fmt.Errorf("calibration temperature %v", c.Temperature)
	case c.Held < 1:
		return fmt.Errorf("calibration fitted on %d images", c.Held)
	}
	if err := checkFinite(c.A, "calibration weight"); err != nil { // nil for a temperature map
		return err
	}
	return checkFinite(c.B, "calibration offset")
}

// Probabilities returns the model's calibrated class probabilities on x
// (N x M row-major, each row summing to 1), or an error wrapping
// ErrUncalibrated for a model without a calibration map.
func (m *Model) Probabilities(x Images) ([]float64, error) {
	if m.Calibration == nil {
		return nil, fmt.Errorf("%w (fit it with calibration: scn train --calibrate)", ErrUncalibrated)
	}
	y, err := m.Predict(x)
	if err != nil {
		return nil, err
	}
	return m.Calibration.Probabilities(y), nil
}

// classesOf returns the predicted class of each row of outputs y: the
// arg-max of the calibrated probabilities for a calibrated model, else of
// y.
func (m *Model) classesOf(y []float64) []int {
	if m.Calibration != nil {
		return ArgMax(m.Calibration.Probabilities(y), m.M)
	}
	return ArgMax(y, m.M)
}

// ClassesOf returns the classes Classify gives for the model's outputs y
// (N x M row-major, from Predict).
func (m *Model) ClassesOf(y []float64) []int { return m.classesOf(y) }

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

// FitCalibration fits a calibration map of scores (N x m row-major, the
// model's outputs on held-out images) to their labels: a temperature
// T (softmax(s / T)) and a multinomial logistic read-out (softmax(A s + b),
// fitted by L-BFGS with a ridge term pulling A towards I / T), each scored
// by the log-loss on one half of the images after fitting on the other
// (both halves, stratified by class), the better kept and refitted on all
// of them.
func FitCalibration(scores []float64, labels []int, m int) (*Calibration, error) {
	n := len(labels)
	switch {
	case m < 2:
		return nil, fmt.Errorf("%w: calibration of %d classes, want at least 2", ErrData, m)
	case len(scores) != n*m:
		return nil, fmt.Errorf("%w: %d scores for %d labels of %d classes", ErrData, len(scores), n, m)
	case n < 4:
		return nil, fmt.Errorf("%w: calibration on %d held-out images, want at least 4", ErrData, n)
	}
	for i, y := range labels {
		if y < 0 || y >= m {
			return nil, fmt.Errorf("%w: label %d of held-out image %d is outside [0, %d)", ErrData, y, i, m)
		}
	}
	if err := checkFinite(scores, "score"); err != nil {
		return nil, err
	}
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
		t := fitTemperature(sf, yf, m)
		tLoss += LogLoss(Softmax(st, m, t), m, yt) * float64(len(test))
		if m > maxLogisticClasses {
			continue
		}
		lc := fitLogistic(sf, yf, m, t)
		lLoss += LogLoss(lc.Probabilities(st), m, yt) * float64(len(test))
	}
	t := fitTemperature(scores, labels, m)
	c := temperatureMap(t, m)
	if m > maxLogisticClasses {
		lLoss = math.Inf(1) // m^2 parameters: the temperature alone
	}
	if lLoss < tLoss {
		c = fitLogistic(scores, labels, m, t)
	}
	c.Held = n
	c.TemperatureLogLoss, c.LogisticLogLoss = tLoss/float64(n), lLoss/float64(n)
	c.RawLogLoss = LogLoss(Softmax(scores, m, 1), m, labels)
	return c, nil
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

// temperatureMap returns the map softmax(s / t) of m classes.
func temperatureMap(t float64, m int) *Calibration {
	return &Calibration{Method: "temperature", Temperature: t, M: m}
}

// maxLogisticClasses bounds the classes of a logistic read-out (m^2 + m
// parameters); more classes get a temperature map.
const maxLogisticClasses = 100

// fitTemperature returns the temperature T minimising the log-loss of
// softmax(s / T). The loss is convex in the inverse temperature u = 1 / T,
// its derivative E_p[s] - s_y increasing: bisection on its sign over
// log u in [log 1e-4, log 1e6].
func fitTemperature(scores []float64, labels []int, m int) float64 {
	deriv := func(u float64) float64 {
		var d float64
		z := make([]float64, m)
		for i, y := range labels {
			row := scores[i*m : (i+1)*m]
			for k, v := range row {
				z[k] = u * v
			}
			softmaxInPlace(z)
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

// fitLogistic fits softmax(A s + b) by L-BFGS on the mean log-loss plus
// logisticRidge ||A - I / t||^2 / 2, starting at the temperature map.
func fitLogistic(scores []float64, labels []int, m int, t float64) *Calibration {
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

// lbfgs minimises f (which returns the value and, with grad not nil,
// writes the gradient) from x0 by L-BFGS (memory 10) with a backtracking
// Armijo line search, for at most iters steps or until the gradient's
// largest element is below tol. It returns the best point found.
func lbfgs(f func(x, grad []float64) float64, x0 []float64, iters int, tol float64) []float64 {
	const mem = 10
	k := len(x0)
	x := slices.Clone(x0)
	g := make([]float64, k)
	fx := f(x, g)
	var ss, ys [][]float64
	var rhos []float64
	d, xn, gn := make([]float64, k), make([]float64, k), make([]float64, k)
	alpha := make([]float64, mem)
	dot := func(a, b []float64) float64 {
		var s float64
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	for it := 0; it < iters; it++ {
		gmax := 0.0
		for _, v := range g {
			gmax = math.Max(gmax, math.Abs(v))
		}
		if gmax < tol {
			break
		}
		// Two-loop recursion: d = -H g.
		copy(d, g)
		for i := len(ss) - 1; i >= 0; i-- {
			alpha[i] = rhos[i] * dot(ss[i], d)
			for j := range d {
				d[j] -= alpha[i] * ys[i][j]
			}
		}
		if n := len(ss); n > 0 {
			gamma := dot(ss[n-1], ys[n-1]) / dot(ys[n-1], ys[n-1])
			for j := range d {
				d[j] *= gamma
			}
		}
		for i := range ss {
			b := rhos[i] * dot(ys[i], d)
			for j := range d {
				d[j] += ss[i][j] * (alpha[i] - b)
			}
		}
		for j := range d {
			d[j] = -d[j]
		}
		slope := dot(g, d)
		if !(slope < 0) {
			// Not a descent direction: restart from steepest descent.
			ss, ys, rhos = nil, nil, nil
			for j := range d {
				d[j] = -g[j]
			}
			slope = dot(g, d)
		}
		step, ok := 1.0, false
		if len(ss) == 0 {
			step = 1 / math.Max(1, math.Sqrt(dot(g, g)))
		}
		for ls := 0; ls < 40; ls++ {
			for j := range x {
				xn[j] = x[j] + step*d[j]
			}
			fn := f(xn, gn)
			if fn <= fx+1e-4*step*slope && !math.IsNaN(fn) {
				ok = true
				s, y := make([]float64, k), make([]float64, k)
				for j := range s {
					s[j], y[j] = xn[j]-x[j], gn[j]-g[j]
				}
				if sy := dot(s, y); sy > 1e-300 {
					if len(ss) == mem {
						ss, ys, rhos = ss[1:], ys[1:], rhos[1:]
					}
					ss, ys, rhos = append(ss, s), append(ys, y), append(rhos, 1/sy)
				}
				improved := fx - fn
				copy(x, xn)
				copy(g, gn)
				fx = fn
				if improved <= 1e-15*math.Max(1, math.Abs(fx)) {
					return x
				}
				break
			}
			step /= 2
		}
		if !ok {
			break
		}
	}
	return x
}

// Interval records split-conformal prediction intervals of a regression
// model: output q of an image lies in [y_q - Radius[q], y_q + Radius[q]]
// with probability at least Coverage for images exchangeable with the
// held-out ones the radii were taken from (the k-th smallest absolute
// held-out residual, k = ceil((Held + 1) Coverage)).
type Interval struct {
	Coverage float64
	Radius   []float64 // per output
	Held     int       // held-out images the radii come from
}

// FitInterval returns the split-conformal intervals of the given coverage
// in (0, 1) from held-out predictions y and targets t (N x m row-major).
func FitInterval(y, t []float64, m int, coverage float64) (*Interval, error) {
	if err := checkCoverage(coverage); err != nil {
		return nil, err
	}
	if m < 1 || len(y) != len(t) || len(y)%m != 0 || len(y) == 0 {
		return nil, fmt.Errorf("%w: %d predictions and %d targets of %d outputs", ErrData, len(y), len(t), m)
	}
	n := len(y) / m
	k := int(math.Ceil(float64(n+1) * coverage))
	if k > n {
		return nil, fmt.Errorf("%w: a %g conformal interval needs at least %d held-out images, there are %d", ErrData, coverage, int(math.Ceil(coverage/(1-coverage))), n)
	}
	iv := &Interval{Coverage: coverage, Radius: make([]float64, m), Held: n}
	r := make([]float64, n)
	for q := 0; q < m; q++ {
		for i := range r {
			r[i] = math.Abs(y[i*m+q] - t[i*m+q])
		}
		if err := checkFinite(r, "held-out residual"); err != nil {
			return nil, err
		}
		sort.Float64s(r)
		iv.Radius[q] = r[k-1]
	}
	return iv, nil
}

// checkCoverage reports whether c is a coverage in (0, 1).
func checkCoverage(c float64) error {
	if !(c > 0 && c < 1) {
		return fmt.Errorf("%w: coverage %v, want a share in (0, 1) (e.g. 0.9)", ErrConfig, c)
	}
	return nil
}

// check reports whether iv is usable for m outputs.
func (iv *Interval) check(m int) error {
	switch {
	case !(iv.Coverage > 0 && iv.Coverage < 1):
		return fmt.Errorf("interval coverage %v", iv.Coverage)
	case len(iv.Radius) != m:
		return fmt.Errorf("%d interval radii for %d outputs", len(iv.Radius), m)
	case iv.Held < 1:
		return fmt.Errorf("interval from %d images", iv.Held)
	}
	for _, r := range iv.Radius {
		if !(r >= 0) || math.IsInf(r, 0) {
			return fmt.Errorf("interval radius %v", r)
		}
	}
	return nil
}

// Bounds returns the lower and upper ends of the intervals of predictions
// y (N x m row-major).
func (iv *Interval) Bounds(y []float64) (lower, upper []float64) {
	m := len(iv.Radius)
	lower, upper = make([]float64, len(y)), make([]float64, len(y))
	for i, v := range y {
		lower[i], upper[i] = v-iv.Radius[i%m], v+iv.Radius[i%m]
	}
	return lower, upper
}
