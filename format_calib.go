package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/calib"
	"github.com/scn2d/scn/internal/classweight"
	"github.com/scn2d/scn/internal/modelfile"
)

// The calibration extensions' mapping (the format: internal/modelfile).

// calibExtended reports whether the model uses one of the calibration
// extensions (so that its file is version 3).
func (m *Model) calibExtended() bool {
	return m.Calibration != nil || m.Interval != nil || m.ClassWeights != nil
}

// calibHeader fills the header's calibration fields (calib.ToFile).
func (m *Model) calibHeader(h *modelfile.Header) {
	h.Calibration, h.Interval = calib.ToFile(m.Calibration, m.Interval)
	h.ClassWeights = m.ClassWeights
}

// calibModel sets the model's calibration fields from a header of format
// version v (calib.FromFile) and checks them against it.
func calibModel(h *modelfile.Header, m *Model, v uint32) error {
	if h.Calibration == nil && h.Interval == nil && h.ClassWeights == nil {
		return nil
	}
	c, iv, w, err := calib.FromFile(h, v)
	if err != nil {
		return err
	}
	m.Calibration, m.Interval, m.ClassWeights = c, iv, w
	if err := m.checkCalib(); err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return nil
}

// checkCalib reports whether the model's calibration fields agree with it.
func (m *Model) checkCalib() error {
	if c := m.Calibration; c != nil {
		if !m.IsClassifier() {
			return fmt.Errorf("scn: a regression model with a calibration map")
		}
		if err := checkCalibration(c, m.M); err != nil {
			return fmt.Errorf("scn: %w", err)
		}
	}
	if iv := m.Interval; iv != nil {
		if m.IsClassifier() {
			return fmt.Errorf("scn: a classifier with conformal intervals")
		}
		if err := iv.Check(m.M); err != nil {
			return fmt.Errorf("scn: %w", err)
		}
	}
	if w := m.ClassWeights; w != nil {
		if !m.IsClassifier() {
			return fmt.Errorf("scn: a regression model with class weights")
		}
		if err := checkWeights(w, m.M); err != nil {
			return fmt.Errorf("scn: %w", err)
		}
	}
	return nil
}

// checkWeights reports whether w holds m finite class weights > 0
// (classweight.Check).
func checkWeights(w []float64, m int) error { return classweight.Check(w, m) }
