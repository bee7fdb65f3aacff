package export

import (
	"fmt"

	"github.com/scn2d/scn"
	pb "github.com/scn2d/scn/internal/onnxpb"
	"github.com/scn2d/scn/npy"
)

// calibNodes adds the calibrated probabilities of a calibrated classifier,
// or the conformal intervals of a regression model, to the graph after y
// (see the package documentation) and their outputs to outputs. It
// returns the tensor whose arg-max is the class: "probability" for a
// calibrated model, else "y".
func (g *graph) calibNodes(m *scn.Model, outputs *[]*pb.ValueInfoProto) string {
	k := m.M
	if c := m.Calibration; c != nil && m.IsClassifier() && c.A == nil {
		// A temperature map: Softmax(Div(y, T)).
		g.float64s("calibration_T", []float64{c.Temperature})
		g.node("Div", []string{"y", "calibration_T"}, "calibration_z", nil)
		g.node("Softmax", []string{"calibration_z"}, "probability", []*pb.AttributeProto{intAttr("axis", 1)})
		*outputs = append(*outputs, tensorInfo("probability", pb.TensorProto_DOUBLE, "N", k))
		return "probability"
	}
	if c := m.Calibration; c != nil && m.IsClassifier() {
		at := make([]float64, k*k)
		for q := 0; q < k; q++ {
			for j := 0; j < k; j++ {
				at[j*k+q] = c.A[q*k+j]
			}
		}
		g.float64s("calibration_At", at, k, k)
		g.float64s("calibration_b", c.B, k)
		g.node("MatMul", []string{"y", "calibration_At"}, "calibration_z0", nil)
		g.node("Add", []string{"calibration_z0", "calibration_b"}, "calibration_z", nil)
		g.node("Softmax", []string{"calibration_z"}, "probability", []*pb.AttributeProto{intAttr("axis", 1)})
		*outputs = append(*outputs, tensorInfo("probability", pb.TensorProto_DOUBLE, "N", k))
		return "probability"
	}
	if iv := m.Interval; iv != nil && !m.IsClassifier() {
		g.float64s("interval_radius", iv.Radius, k)
		g.node("Sub", []string{"y", "interval_radius"}, "lower", nil)
		g.node("Add", []string{"y", "interval_radius"}, "upper", nil)
		*outputs = append(*outputs, tensorInfo("lower", pb.TensorProto_DOUBLE, "N", k), tensorInfo("upper", pb.TensorProto_DOUBLE, "N", k))
	}
	return "y"
}

// calibDoc describes the calibration outputs for the graph's doc string.
func calibDoc(m *scn.Model) string {
	switch {
	case m.Calibration != nil && m.IsClassifier():
		return fmt.Sprintf("; probability: N x %d float64, the calibrated class probabilities (%s map)", m.M, m.Calibration.Method)
	case m.Interval != nil && !m.IsClassifier():
		return fmt.Sprintf("; lower, upper: N x %d float64, the %g conformal prediction intervals", m.M, m.Interval.Coverage)
	}
	return ""
}

// calibArrays returns the NPZ arrays of the model's calibration map,
// intervals and class weights (none for a model without them).
func calibArrays(m *scn.Model) []npy.Named {
	var out []npy.Named
	add := func(name string, data any, shape ...int) {
		out = append(out, npy.Named{Name: name, Array: &npy.Array{Shape: shape, Data: data}})
	}
	if c := m.Calibration; c != nil {
		if c.A != nil {
			add("calibration_a", append([]float64(nil), c.A...), m.M, m.M)
			add("calibration_b", append([]float64(nil), c.B...), m.M)
		}
		add("calibration_method", []string{c.Method})
		add("temperature", []float64{c.Temperature})
	}
	if iv := m.Interval; iv != nil {
		add("interval_radius", append([]float64(nil), iv.Radius...), m.M)
		add("interval_coverage", []float64{iv.Coverage})
	}
	if w := m.ClassWeights; w != nil {
		add("class_weights", append([]float64(nil), w...), m.M)
	}
	return out
}
