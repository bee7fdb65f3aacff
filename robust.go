package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/robust"
)

// Robust output weights (Config.Robust): the method, after the robust
// SCN of Wang and Li, is internal/robust's package doc. Only the output
// weights are robust: the hidden nodes are those the fit chose on the
// plain residual. Config.Fit and Config.Select apply it to the model they
// return; a Path's prefixes are plain, and Model.Robust applies it to any
// model.

// RobustReport says how a robust solve went: the reweightings done
// (Iterations), whether the output weights stopped moving (Converged,
// relative change below 1e-8), the smallest sample weight (MinWeight) and
// the samples weighted below 1/2 (Downweight).
type RobustReport = robust.Report

// Robust returns a copy of m whose output weights are the robust ones
// (kernel-density-weighted iteratively reweighted least squares, see
// Config.Robust) on the training problem p, with m's ridge term, and what
// the solve did. The hidden nodes are m's; p must be the data m was fitted
// on, or any problem of its shape. It holds the hidden outputs of p as an
// N x L float64 matrix.
func (m *Model) Robust(p Problem) (*Model, RobustReport, error) {
	if err := m.refuseLocal("robust output weights"); err != nil {
		return nil, RobustReport{}, err
	}
	if m.IsDeep() {
		return nil, RobustReport{}, fmt.Errorf("%w: robust output weights", ErrDeep)
	}
	if err := p.check(); err != nil {
		return nil, RobustReport{}, err
	}
	if err := m.checkInput(p.X); err != nil {
		return nil, RobustReport{}, err
	}
	if p.M != m.M {
		return nil, RobustReport{}, fmt.Errorf("scn: robust solve: %d target columns for a model of %d outputs", p.M, m.M)
	}
	h := hiddenDense(m, p.X)
	beta, _, rep, err := robust.Beta(h, p.T, m.M, m.Config.Ridge)
	if err != nil {
		return nil, rep, err
	}
	out := *m
	out.Beta = beta
	out.Config.Robust = true
	out.Summary.TrainRMSE = robust.WeightedRMSE(h, beta, p.T, m.M, nil)
	return &out, rep, nil
}
