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
