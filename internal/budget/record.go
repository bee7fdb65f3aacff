package budget

import (
	"fmt"
	"math"
	"time"

	"github.com/scn2d/scn/internal/kind"
	"github.com/scn2d/scn/internal/modelfile"
)

// Encode returns the header field of a budget record (nil for nil).
func Encode(r *Record) *modelfile.Budget {
	if r == nil {
		return nil
	}
	p := r.Plan
	f := &modelfile.Budget{
		Budget: r.Budget.Seconds(), Kind: p.Kind.String(), Preset: p.Preset, Nodes: p.Nodes, MaxNodes: p.MaxNodes,
		BlockSize: p.BlockSize, Validation: p.Validation, Points: p.Points, Ridges: p.Ridges, FitRidge: p.FitRidge,
		Predicted: p.Predicted.Seconds(), Rates: [5]float64{p.Rates.Score, p.Rates.Gram, p.Rates.Chol, p.Rates.Block, p.Rates.Finish},
		Why: p.Why, FitNodes: r.FitNodes, Stopped: r.Stopped, Elapsed: r.Elapsed.Seconds(),
		Checkpoints: make([][]float64, len(r.Checkpoints)), FitWeights: p.FitWeights, Filters: p.Filters, Probe: p.Probe,
	}
	for i, c := range r.Checkpoints {
		f.Checkpoints[i] = []float64{float64(c.Nodes), c.Elapsed.Seconds(), c.Accuracy, c.RMSE}
	}
	return f
}

// Decode checks a header's budget field and returns its record (nil for
// nil): nodes at most maxNodes, filters at most maxFilters. Its errors
// say what is wrong ("budget: ..."); the caller wraps them in its format
// error.
func Decode(f *modelfile.Budget, maxNodes, maxFilters int) (*Record, error) {
	if f == nil {
		return nil, nil
	}
	k, err := kind.Parse(f.Kind)
	if err != nil {
		return nil, fmt.Errorf("budget: %v", err)
	}
	secs := func(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }
	switch {
	case f.BlockSize < 1 || f.MaxNodes < 1 || f.FitNodes < 0 || f.FitNodes > maxNodes || f.MaxNodes > maxNodes:
		return nil, fmt.Errorf("budget: block %d, max nodes %d, fitted %d", f.BlockSize, f.MaxNodes, f.FitNodes)
	case !(f.Validation > 0 && f.Validation < 1) && !(f.Validation == 0 && f.Filters > 0):
		return nil, fmt.Errorf("budget: validation share %v", f.Validation)
	case f.Filters < 0 || f.Filters > maxFilters:
		return nil, fmt.Errorf("budget: %d filters", f.Filters)
	case len(f.Ridges) == 0:
		return nil, fmt.Errorf("budget: no ridge terms")
	}
	p := Plan{
		Kind: k, Preset: f.Preset, Nodes: f.Nodes, MaxNodes: f.MaxNodes, BlockSize: f.BlockSize,
		Validation: f.Validation, Points: f.Points, Ridges: f.Ridges, FitRidge: f.FitRidge, Predicted: secs(f.Predicted),
		Rates: Rates{Score: f.Rates[0], Gram: f.Rates[1], Chol: f.Rates[2], Block: f.Rates[3], Finish: f.Rates[4]}, Why: f.Why,
		FitWeights: f.FitWeights, Filters: f.Filters, Probe: f.Probe,
	}
	r := &Record{Budget: secs(f.Budget), Plan: p, FitNodes: f.FitNodes, Stopped: f.Stopped, Elapsed: secs(f.Elapsed)}
	for _, row := range f.Checkpoints {
		if len(row) != 4 {
			return nil, fmt.Errorf("budget checkpoint of %d values, want 4", len(row))
		}
		r.Checkpoints = append(r.Checkpoints, Checkpoint{Nodes: int(row[0]), Elapsed: secs(row[1]), Accuracy: row[2], RMSE: row[3]})
	}
	return r, nil
}
