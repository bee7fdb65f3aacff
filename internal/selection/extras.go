package selection

import (
	"errors"
	"fmt"
)

// CheckExtras reports an impossible setting of a selection's extras: a
// coverage outside (0, 1) (0: no intervals), or class weights (weighted)
// with a robust fit. The messages are the root package's, which wraps
// them in scn.ErrConfig.
func CheckExtras(coverage float64, weighted, robust bool) error {
	switch {
	case coverage != 0 && !(coverage > 0 && coverage < 1):
		return fmt.Errorf("Coverage = %v, want a share in (0, 1) (or 0: no intervals)", coverage)
	case weighted && robust:
		return errors.New("class weights and Robust both weigh the images of the least squares: choose one")
	}
	return nil
}

// CheckExtrasProblem reports extras that a problem of m outputs cannot
// have (classify: a classification problem): intervals of a classifier,
// class weights of a regression or not one per class.
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
