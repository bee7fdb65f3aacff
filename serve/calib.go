package serve

import (
	"net/http"
	"strconv"

	"github.com/scn2d/scn"
)

// calibInfo is what GET /v1/models says of a model's calibration.
type calibInfo struct {
	// Calibration is the calibration map's method ("temperature" or
	// "logistic"), absent for an uncalibrated model: its scores are not
	// probabilities.
	Calibration string `json:"calibration,omitempty"`
	// IntervalCoverage is the coverage of a regression model's conformal
	// intervals, absent without.
	IntervalCoverage float64 `json:"interval_coverage,omitempty"`
}

func infoCalib(m *scn.Model) calibInfo {
	var c calibInfo
	if m.Calibration != nil {
		c.Calibration = m.Calibration.Method
	}
	if m.Interval != nil {
		c.IntervalCoverage = m.Interval.Coverage
	}
	return c
}

// calibPrediction is what a prediction adds for calibrated models and
// models with intervals.
type calibPrediction struct {
	// Probability is the calibrated probability of Class (of the best
	// class when Unsure).
	Probability *float64 `json:"probability,omitempty"`
	// Unsure is true when the top probability is below the reject
	// threshold: Class is then "unsure" and Index absent.
	Unsure bool `json:"unsure,omitempty"`
	// Lower and Upper are a regression model's conformal interval of
	// each output.
	Lower []float64 `json:"lower,omitempty"`
	Upper []float64 `json:"upper,omitempty"`
}

// unsureClass is the class answered under the reject threshold.
const unsureClass = "unsure"

// calibrated fills a calibrated classifier's prediction from its scores
// y: classes by probability, each score with its probability.
func (p *prediction) calibrated(m *scn.Model, y []float64, top int, reject float64) {
	prob := m.Calibration.Probabilities(y)
	idx := scn.TopK(prob, max(top, 1))
	best := idx[0]
	pb := prob[best]
	p.Probability = &pb
	if pb < reject {
		p.Class, p.Unsure = unsureClass, true
	} else {
		p.Class, p.Index = m.Classes[best], &best
	}
	p.Scores = make([]score, 0, min(top, len(idx)))
	for _, k := range idx[:min(top, len(idx))] {
		pk := prob[k]
		p.Scores = append(p.Scores, score{Class: m.Classes[k], Score: y[k], Probability: &pk})
	}
}

// addInterval adds a regression model's conformal intervals.
func (p *prediction) addInterval(m *scn.Model, y []float64) {
	if m.Interval == nil {
		return
	}
	p.Lower, p.Upper = m.Interval.Bounds(y)
}

// rejectBelow returns the request's reject threshold: ?reject_below=P, or
// the server's. A threshold for a model without calibration is refused
// (422), as is one outside [0, 1] (400).
func (s *Server) rejectBelow(r *http.Request, md *model) (float64, error) {
	q := r.URL.Query().Get("reject_below")
	if q == "" {
		if md.m.Calibration == nil {
			return 0, nil
		}
		return s.opts.RejectBelow, nil
	}
	v, err := strconv.ParseFloat(q, 64)
	if err != nil || !(v >= 0 && v <= 1) {
		return 0, errorf(http.StatusBadRequest, "reject_below=%q: want a probability in [0, 1]", q)
	}
	if md.m.Calibration == nil {
		return 0, errorf(http.StatusUnprocessableEntity, "reject_below: model %q is not calibrated (scn train with model selection, or --calibrate), its scores are not probabilities", md.name)
	}
	return v, nil
}
