package scn

import "github.com/scn2d/scn/internal/score"

// PPA returns the percentage of prediction accuracy of the paper's
// regression experiment (E1) as a share in [0, 1]: the fraction of the
// predictions y whose absolute error against the targets t is strictly
// below theta, counted over every value (all N*m outputs, as RMSE is), so
// that a model with m outputs is judged on each of them; for one output,
// as in E1, it is the share of images predicted within theta. It returns 0
// for empty input; y and t have the same length.
//
// Accuracy and RMSE, the other two scores, are defined next to
// Model.Accuracy and Model.RMSE.
func PPA(y, t []float64, theta float64) float64 { return score.PPA(y, t, theta) }
