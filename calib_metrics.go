package scn

import "github.com/scn2d/scn/internal/calib"

// ProbabilityScores scores class probabilities p (N x m row-major)
// against labels: the mean log-loss (natural log), the Brier score (the
// mean over images of sum_k (p_k - [k = y])^2), the expected calibration
// error over Bins equal-width bins of the top probability (sum over bins
// of n_b / N |accuracy_b - confidence_b|) and the bins themselves (the
// reliability diagram): fields LogLoss, Brier, ECE, Bins.
type ProbabilityScores = calib.ProbabilityScores

// ReliabilityBin is one bin of a reliability diagram: the images whose top
// probability lies in [Lo, Hi) (the last bin includes 1), their Count,
// mean top probability (Confidence) and the share of them classified
// right (Accuracy).
type ReliabilityBin = calib.ReliabilityBin

// ScoreProbabilities returns the ProbabilityScores of p against labels
// with the given number of bins (15 if bins < 1).
func ScoreProbabilities(p []float64, m int, labels []int, bins int) ProbabilityScores {
	return calib.ScoreProbabilities(p, m, labels, bins)
}

// ClassScores are per-class precision, recall and F1 of a classification
// and their summaries: balanced accuracy (the mean recall over the classes
// that have images) and macro-F1 (the mean F1 over the same classes);
// fields Precision, Recall, F1, Support, BalancedAccuracy, MacroF1. A
// class never predicted has precision 0.
type ClassScores = calib.ClassScores

// ScoreClasses returns the ClassScores of predictions pred against labels,
// m classes.
func ScoreClasses(pred, labels []int, m int) ClassScores { return calib.ScoreClasses(pred, labels, m) }

// RejectPoint is one point of an accuracy/coverage curve: answering only
// where the top probability is at least Threshold covers a share Coverage
// of the images, of which a share Accuracy is right (0 when none is
// answered).
type RejectPoint = calib.RejectPoint

// RejectCurve returns the accuracy/coverage curve of probabilities p (N x
// m) against labels at each threshold.
func RejectCurve(p []float64, m int, labels []int, thresholds []float64) []RejectPoint {
	return calib.RejectCurve(p, m, labels, thresholds)
}

// ScoreIntervals returns the share of targets t within their intervals
// [lo, hi] and the mean width hi - lo (all N x m values).
func ScoreIntervals(lo, hi, t []float64) (coverage, width float64) {
	return calib.ScoreIntervals(lo, hi, t)
}

// ECENoise is the expected calibration error that a perfectly calibrated
// model would show on the same images: the ECE of probabilities p (the
// same bins) against labels drawn from p itself, over Draws draws (fields
// Draws, Mean, Median, P90, P95). It is the estimator's own noise on a
// test set of that size and confidence distribution: an observed ECE
// within it cannot be told from a calibrated model's.
type ECENoise = calib.ECENoise

// CalibratedECE returns the ECENoise of probabilities p (N x m row-major)
// with the given number of equal-width bins (15 if bins < 1) over draws
// draws (200 if draws < 1), deterministic in seed. Only the top
// probability matters: with labels drawn from p, the top class is right
// with probability equal to it.
func CalibratedECE(p []float64, m, bins, draws int, seed uint64) ECENoise {
	return calib.CalibratedECE(p, m, bins, draws, seed)
}
