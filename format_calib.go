package scn

import (
	"fmt"
	"math"
	"slices"

	"github.com/scn2d/scn/internal/modelfile"
)

// The calibration extensions' mapping (the format: internal/modelfile).

// calibExtended reports whether the model uses one of the calibration
// extensions (so that its file is version 3).
func (m *Model) calibExtended() bool {
	return m.Calibration != nil || m.Interval != nil || m.ClassWeights != nil
}

// calibHeader fills the header's calibration fields.
func (m *Model) calibHeader(h *modelfile.Header) {
	if c := m.Calibration; c != nil {
		f := &modelfile.Calibration{Method: c.Method, Temperature: c.Temperature, Held: c.Held,
			TempLoss: c.TemperatureLogLoss, LogiLoss: c.LogisticLogLoss, RawLoss: c.RawLogLoss}
		f.A, f.B = c.A, c.B // nil for a temperature map
		h.Calibration = f
	}
	if iv := m.Interval; iv != nil {
		h.Interval = &modelfile.Interval{Coverage: iv.Coverage, Radius: iv.Radius, Held: iv.Held}
	}
	h.ClassWeights = m.ClassWeights
}

// calibModel sets the model's calibration fields from a header of format
// version v.
func calibModel(h *modelfile.Header, m *Model, v uint32) error {
	if h.Calibration == nil && h.Interval == nil && h.ClassWeights == nil {
		return nil
	}
	if v < 3 {
		return fmt.Errorf("%w: version %d file with calibration fields (they need version 3)", ErrFormat, v)
	}
	if f := h.Calibration; f != nil {
		c := &Calibration{Method: f.Method, Temperature: f.Temperature, Held: f.Held,
			TemperatureLogLoss: f.TempLoss, LogisticLogLoss: f.LogiLoss, RawLogLoss: f.RawLoss}
		c.M = h.Outputs
		if f.Method != "temperature" {
			c.A, c.B = slices.Clone(f.A), slices.Clone(f.B)
		} else if f.A != nil || f.B != nil {
			return fmt.Errorf("%w: temperature calibration with a matrix", ErrFormat)
		}
		m.Calibration = c
	}
	if f := h.Interval; f != nil {
		m.Interval = &Interval{Coverage: f.Coverage, Radius: slices.Clone(f.Radius), Held: f.Held}
	}
	m.ClassWeights = slices.Clone(h.ClassWeights)
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

// checkWeights reports whether w holds m finite class weights > 0.
func checkWeights(w []float64, m int) error {
	if len(w) != m {
		return fmt.Errorf("%d class weights for %d classes", len(w), m)
	}
	for c, v := range w {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("class weight %d is %v, want a finite value > 0", c, v)
		}
	}
	return nil
}
