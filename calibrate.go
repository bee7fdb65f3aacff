package scn

import (
	"errors"
	"fmt"

	"github.com/scn2d/scn/internal/calib"
)

// Calibration maps a classifier's output scores s (its M least-squares
// outputs, Model.Predict) to class probabilities: p = softmax(A s + b),
// A an M x M matrix and b M offsets. A temperature-scaled softmax is the
// map A = I / T, b = 0; a multinomial logistic read-out of the scores
// (Method "logistic") has any A and b. Fitted on images the model's
// output weights were not solved on (Config.Select's hold-out or folds),
// the map that gave the lower cross-fitted held-out log-loss is kept.
// Its fields are Method, Temperature, M, A, B, Held and the three
// held-out log-losses; its methods Logits and Probabilities (the math is
// internal/calib's).
type Calibration = calib.Calibration

// ErrUncalibrated is wrapped by the error of Model.Probabilities for a
// model without a calibration map (a regression model, or one fitted or
// saved without calibration).
var ErrUncalibrated = errors.New("scn: the model is not calibrated")

// Softmax returns softmax(scores / t) row by row (N x m row-major): the
// plain softmax of uncalibrated scores at t = 1.
func Softmax(scores []float64, m int, t float64) []float64 { return calib.Softmax(scores, m, t) }

// checkCalibration reports whether c is a usable map of m classes.
func checkCalibration(c *Calibration, m int) error {
	if err := c.Check(m); err != nil {
		return err
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
func LogLoss(p []float64, m int, labels []int) float64 { return calib.LogLoss(p, m, labels) }

// FitCalibration fits a calibration map of scores (N x m row-major, the
// model's outputs on held-out images) to their labels: a temperature
// T (softmax(s / T)) and a multinomial logistic read-out (softmax(A s + b),
// fitted by L-BFGS with a ridge term pulling A towards I / T), each scored
// by the log-loss on one half of the images after fitting on the other
// (both halves, stratified by class), the better kept and refitted on all
// of them.
func FitCalibration(scores []float64, labels []int, m int) (*Calibration, error) {
	if err := calib.CheckFit(scores, labels, m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrData, err)
	}
	return calib.Fit(scores, labels, m), nil
}

// Interval records split-conformal prediction intervals of a regression
// model: output q of an image lies in [y_q - Radius[q], y_q + Radius[q]]
// with probability at least Coverage for images exchangeable with the
// held-out ones the radii were taken from (the k-th smallest absolute
// held-out residual, k = ceil((Held + 1) Coverage)). Its method Bounds
// gives the intervals of predictions.
type Interval = calib.Interval

// FitInterval returns the split-conformal intervals of the given coverage
// in (0, 1) from held-out predictions y and targets t (N x m row-major).
func FitInterval(y, t []float64, m int, coverage float64) (*Interval, error) {
	if err := checkCoverage(coverage); err != nil {
		return nil, err
	}
	iv, err := calib.FitInterval(y, t, m, coverage)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrData, err)
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
