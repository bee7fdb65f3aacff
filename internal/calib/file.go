package calib

import (
	"fmt"
	"slices"

	"github.com/scn2d/scn/internal/modelfile"
)

// ToFile returns the model file header's fields of a calibration map and
// of conformal intervals (nil for nil).
func ToFile(c *Calibration, iv *Interval) (*modelfile.Calibration, *modelfile.Interval) {
	var fc *modelfile.Calibration
	var fi *modelfile.Interval
	if c != nil {
		f := &modelfile.Calibration{Method: c.Method, Temperature: c.Temperature, Held: c.Held,
			TempLoss: c.TemperatureLogLoss, LogiLoss: c.LogisticLogLoss, RawLoss: c.RawLogLoss}
		f.A, f.B = c.A, c.B // nil for a temperature map
		fc = f
	}
	if iv != nil {
		fi = &modelfile.Interval{Coverage: iv.Coverage, Radius: iv.Radius, Held: iv.Held}
	}
	return fc, fi
}

// FromFile returns the calibration map, the conformal intervals and the
// class weights of a header of format version v (nil for those it does
// not hold; copies of its slices), refusing them in a file before version
// 3 and a temperature map with a matrix. The caller checks them against
// the model.
func FromFile(h *modelfile.Header, v uint32) (*Calibration, *Interval, []float64, error) {
	if v < 3 {
		return nil, nil, nil, fmt.Errorf("%w: version %d file with calibration fields (they need version 3)", modelfile.ErrFormat, v)
	}
	var c *Calibration
	var iv *Interval
	if f := h.Calibration; f != nil {
		c = &Calibration{Method: f.Method, Temperature: f.Temperature, Held: f.Held,
			TemperatureLogLoss: f.TempLoss, LogisticLogLoss: f.LogiLoss, RawLogLoss: f.RawLoss}
		c.M = h.Outputs
		if f.Method != "temperature" {
			c.A, c.B = slices.Clone(f.A), slices.Clone(f.B)
		} else if f.A != nil || f.B != nil {
			return nil, nil, nil, fmt.Errorf("%w: temperature calibration with a matrix", modelfile.ErrFormat)
		}
	}
	if f := h.Interval; f != nil {
		iv = &Interval{Coverage: f.Coverage, Radius: slices.Clone(f.Radius), Held: f.Held}
	}
	return c, iv, slices.Clone(h.ClassWeights), nil
}
