package scn

import (
	"fmt"
	"math"
	"slices"
)

// The calibration extensions of the model file (format version 3): three
// optional header fields, no payload section.
//
//	"calibration":   {"method": "temperature"|"logistic", "temperature": T,
//	                  "a": [M*M] (logistic only, M <= 100), "b": [M] (logistic only),
//	                  "held_out": n, "temperature_log_loss", "logistic_log_loss",
//	                  "raw_log_loss"}
//	"interval":      {"coverage": c, "radius": [M], "held_out": n}
//	"class_weights": [M]
//
// A temperature map has no matrix (its logits are s / T). Numbers are
// written by encoding/json, whose float64 text reads back to the same
// bits.

// fileCalibration is a model's Calibration in its file header.
type fileCalibration struct {
	Method      string    `json:"method"`
	Temperature float64   `json:"temperature"`
	A           []float64 `json:"a,omitempty"`
	B           []float64 `json:"b,omitempty"`
	Held        int       `json:"held_out"`
	TempLoss    float64   `json:"temperature_log_loss"`
	LogiLoss    float64   `json:"logistic_log_loss"`
	RawLoss     float64   `json:"raw_log_loss"`
}

// fileInterval is a model's Interval in its file header.
type fileInterval struct {
	Coverage float64   `json:"coverage"`
	Radius   []float64 `json:"radius"`
	Held     int       `json:"held_out"`
}

// calibExtended reports whether the model uses one of the calibration
// extensions (so that its file is version 3).
func (m *Model) calibExtended() bool {
	return m.Calibration != nil || m.Interval != nil || m.ClassWeights != nil
}

// calibHeader fills the header's calibration fields.
func (m *Model) calibHeader(h *fileHeader) {
	if c := m.Calibration; c != nil {
		f := &fileCalibration{Method: c.Method, Temperature: c.Temperature, Held: c.Held,
			TempLoss: c.TemperatureLogLoss, LogiLoss: c.LogisticLogLoss, RawLoss: c.RawLogLoss}
		f.A, f.B = c.A, c.B // nil for a temperature map
		h.Calibration = f
	}
	if iv := m.Interval; iv != nil {
		h.Interval = &fileInterval{Coverage: iv.Coverage, Radius: iv.Radius, Held: iv.Held}
	}
	h.ClassWeights = m.ClassWeights
}

// calibModel sets the model's calibration fields from a header of format
// version v.
func (h fileHeader) calibModel(m *Model, v uint32) error {
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
