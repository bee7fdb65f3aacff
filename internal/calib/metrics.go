package calib

import (
	"math"
	"sort"
)

// ProbabilityScores scores class probabilities p (N x m row-major)
// against labels: the mean log-loss (natural log), the Brier score (the
// mean over images of sum_k (p_k - [k = y])^2), the expected calibration
// error over Bins equal-width bins of the top probability (sum over bins
// of n_b / N |accuracy_b - confidence_b|) and the bins themselves (the
// reliability diagram).
type ProbabilityScores struct {
	LogLoss, Brier, ECE float64
	Bins                []ReliabilityBin
}

// ReliabilityBin is one bin of a reliability diagram: the images whose top
// probability lies in [Lo, Hi) (the last bin includes 1), their mean top
// probability and the share of them classified right.
type ReliabilityBin struct {
	Lo, Hi     float64
	Count      int
	Confidence float64
	Accuracy   float64
}

// ScoreProbabilities returns the ProbabilityScores of p against labels
// with the given number of bins (15 if bins < 1).
func ScoreProbabilities(p []float64, m int, labels []int, bins int) ProbabilityScores {
	if bins < 1 {
		bins = 15
	}
	out := ProbabilityScores{LogLoss: LogLoss(p, m, labels), Bins: make([]ReliabilityBin, bins)}
	for b := range out.Bins {
		out.Bins[b].Lo, out.Bins[b].Hi = float64(b)/float64(bins), float64(b+1)/float64(bins)
	}
	n := len(labels)
	if n == 0 {
		return out
	}
	var brier float64
	for i, y := range labels {
		row := p[i*m : (i+1)*m]
		top := 0
		for k, v := range row {
			d := v
			if k == y {
				d = v - 1
			}
			brier += d * d
			if v > row[top] {
				top = k
			}
		}
		b := min(int(row[top]*float64(bins)), bins-1)
		bin := &out.Bins[max(b, 0)]
		bin.Count++
		bin.Confidence += row[top]
		if top == y {
			bin.Accuracy++
		}
	}
	out.Brier = brier / float64(n)
	for b := range out.Bins {
		bin := &out.Bins[b]
		if bin.Count == 0 {
			continue
		}
		out.ECE += math.Abs(bin.Accuracy-bin.Confidence) / float64(n)
		bin.Confidence /= float64(bin.Count)
		bin.Accuracy /= float64(bin.Count)
	}
	return out
}

// ClassScores are per-class precision, recall and F1 of a classification
// and their summaries: balanced accuracy (the mean recall over the classes
// that have images) and macro-F1 (the mean F1 over the same classes).
// A class never predicted has precision 0.
type ClassScores struct {
	Precision, Recall, F1 []float64
	Support               []int // images of each class
	BalancedAccuracy      float64
	MacroF1               float64
}

// ScoreClasses returns the ClassScores of predictions pred against labels,
// m classes.
func ScoreClasses(pred, labels []int, m int) ClassScores {
	s := ClassScores{Precision: make([]float64, m), Recall: make([]float64, m), F1: make([]float64, m), Support: make([]int, m)}
	predicted, right := make([]int, m), make([]int, m)
	for i, y := range labels {
		s.Support[y]++
		predicted[pred[i]]++
		if pred[i] == y {
			right[y]++
		}
	}
	classes := 0
	for c := 0; c < m; c++ {
		if predicted[c] > 0 {
			s.Precision[c] = float64(right[c]) / float64(predicted[c])
		}
		if s.Support[c] == 0 {
			continue
		}
		classes++
		s.Recall[c] = float64(right[c]) / float64(s.Support[c])
		if p, r := s.Precision[c], s.Recall[c]; p+r > 0 {
			s.F1[c] = 2 * p * r / (p + r)
		}
		s.BalancedAccuracy += s.Recall[c]
		s.MacroF1 += s.F1[c]
	}
	if classes > 0 {
		s.BalancedAccuracy /= float64(classes)
		s.MacroF1 /= float64(classes)
	}
	return s
}

// RejectPoint is one point of an accuracy/coverage curve: answering only
// where the top probability is at least Threshold covers a share Coverage
// of the images, of which a share Accuracy is right (0 when none is
// answered).
type RejectPoint struct {
	Threshold, Coverage, Accuracy float64
}

// RejectCurve returns the accuracy/coverage curve of probabilities p (N x
// m) against labels at each threshold.
func RejectCurve(p []float64, m int, labels []int, thresholds []float64) []RejectPoint {
	n := len(labels)
	type item struct {
		conf  float64
		right bool
	}
	items := make([]item, n)
	for i, y := range labels {
		row := p[i*m : (i+1)*m]
		top := 0
		for k, v := range row {
			if v > row[top] {
				top = k
			}
		}
		items[i] = item{row[top], top == y}
	}
	sort.Slice(items, func(a, b int) bool { return items[a].conf > items[b].conf })
	out := make([]RejectPoint, len(thresholds))
	for j, t := range thresholds {
		k := sort.Search(n, func(i int) bool { return items[i].conf < t })
		right := 0
		for _, it := range items[:k] {
			if it.right {
				right++
			}
		}
		out[j] = RejectPoint{Threshold: t}
		if n > 0 {
			out[j].Coverage = float64(k) / float64(n)
		}
		if k > 0 {
			out[j].Accuracy = float64(right) / float64(k)
		}
	}
	return out
}

// ScoreIntervals returns the share of targets t within their intervals
// [lo, hi] and the mean width hi - lo (all N x m values).
func ScoreIntervals(lo, hi, t []float64) (coverage, width float64) {
	if len(t) == 0 {
		return 0, 0
	}
	in := 0
	for i, v := range t {
		if v >= lo[i] && v <= hi[i] {
			in++
		}
		width += hi[i] - lo[i]
	}
	return float64(in) / float64(len(t)), width / float64(len(t))
}
