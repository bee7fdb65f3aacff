package selection

import (
	"errors"
	"fmt"
)

// CheckExtrasProblem reports extras that a problem of m outputs cannot
// have (classify: a classification problem): intervals of a classifier,
// class weights of a regression or not one per class. The messages are
// the root package's, which wraps them in scn.ErrConfig.
func CheckExtrasProblem(coverage float64, weights []float64, classify bool, m int) error {
	switch {
	case coverage != 0 && classify:
		return errors.New("conformal intervals (Coverage) are for regression; a classifier gets calibrated probabilities")
	case weights != nil && !classify:
		return errors.New("class weights need a classification problem")
	case weights != nil && len(weights) != m:
		return fmt.Errorf("%d class weights for %d classes", len(weights), m)
	}
	return nil
}

// Extras are what a selection adds to its model M beside L and the ridge
// term, fitted on outputs that the output weights did not see: a
// classifier's calibration map (Calibrate), split-conformal intervals of
// the given Coverage (0: none) and class weights in the output weights'
// least squares (Weighted). P is a problem or a part of one; the models'
// and problems' side is the root package's.
type Extras[M, P any] struct {
	Calibrate bool
	Coverage  float64
	Weighted  bool
	// Check reports extras the problem cannot have (CheckExtrasProblem).
	Check func() error
	// Reweight re-solves a model's output weights on p with the class
	// weights.
	Reweight func(m M, p P) (M, error)
	// Outputs returns a model's outputs on p and p's targets.
	Outputs func(m M, p P) (y, t []float64, err error)
	// Attach returns the model with the calibration map (if Calibrate)
	// and the intervals fitted on outputs y of targets t.
	Attach func(m M, y, t []float64) (M, error)
}

// prepare checks the problem for the extras and re-solves m on all with
// the class weights, if any; more reports whether a calibration map or
// intervals are still to be fitted.
func (x Extras[M, P]) prepare(m M, all P) (out M, more bool, err error) {
	var zero M
	if !x.Calibrate && x.Coverage == 0 && !x.Weighted {
		return m, false, nil
	}
	if err := x.Check(); err != nil {
		return zero, false, err
	}
	if x.Weighted {
		if m, err = x.Reweight(m, all); err != nil {
			return zero, false, err
		}
	}
	return m, x.Calibrate || x.Coverage != 0, nil
}

// held returns the outputs on the held-out part hp of tm, a model solved
// on the training part tp alone, re-solved there with the class weights
// first, if any, and hp's targets.
func (x Extras[M, P]) held(tm M, tp, hp P) (y, t []float64, err error) {
	if x.Weighted {
		if tm, err = x.Reweight(tm, tp); err != nil {
			return nil, nil, err
		}
	}
	return x.Outputs(tm, hp)
}

// HoldOut adds the extras to m, the model of a hold-out selection whose
// output weights were solved on all (training and held-out parts tp and
// hp): train gives the same nodes with the weights solved on tp alone,
// whose held-out outputs the calibration map or the intervals are fitted
// on. With class weights both are re-solved weighted first.
func (x Extras[M, P]) HoldOut(m M, train func() (M, error), tp, hp, all P) (M, error) {
	var zero M
	m, more, err := x.prepare(m, all)
	if err != nil || !more {
		return m, err
	}
	tm, err := train()
	if err != nil {
		return zero, err
	}
	y, t, err := x.held(tm, tp, hp)
	if err != nil {
		return zero, err
	}
	return x.Attach(m, y, t)
}

// Folds adds the extras to m, the model of a k-fold selection on all: the
// calibration map or intervals are fitted on every image's out-of-fold
// output, fold f's from fit(f, m), the model of fold f's training part tp
// with the chosen L and ridge term (and m's direct links, if any; m
// re-solved with the class weights), and its held-out part hp.
func (x Extras[M, P]) Folds(m M, all P, k int, fit func(f int, m M) (tm M, tp, hp P, err error)) (M, error) {
	var zero M
	m, more, err := x.prepare(m, all)
	if err != nil || !more {
		return m, err
	}
	var y, t []float64
	for f := 0; f < k; f++ {
		tm, tp, hp, err := fit(f, m)
		if err != nil {
			return zero, err
		}
		yf, tf, err := x.held(tm, tp, hp)
		if err != nil {
			return zero, err
		}
		y, t = append(y, yf...), append(t, tf...)
	}
	return x.Attach(m, y, t)
}
