package modelrec

import (
	"fmt"

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/calib"
	"github.com/scn2d/scn/internal/classweight"
	"github.com/scn2d/scn/internal/deep"
	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/kind"
	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/modelfile"
	"github.com/scn2d/scn/internal/node"
)

// Model is a fitted model as plain data: scn.Model's fields (see there)
// with the root package's types replaced by their internal forms. Its
// slices and pointers are shared with the scn.Model it was filled from.
type Model struct {
	Kind                    kind.Kind
	Activation              node.Activation
	ActivationName          string // Activation's name (scn.Activation.String)
	Rows, Cols, Channels, M int
	Classes                 []string
	Params, Bias            []float32
	Beta                    []float64
	Deep                    []deep.Layer
	Local                   *localnet.Layer
	Calibration             *calib.Calibration
	Interval                *calib.Interval
	ClassWeights            []float64
	Direct                  *direct.Link
	Summary                 drive.Summary
	Meta                    map[string]string
	Preprocessing           modelfile.Preprocessing
	// PerNode is the hidden parameters per node, the bias excluded
	// (scn.Model.ParamsPerNode).
	PerNode int
	// Augment and Seed are the fit's augmentation (nil without) and seed
	// (scn.Config.Augment and Seed): an augmented local model's
	// statistics sum each image's copies drawn from them.
	Augment *augment.Spec
	Seed    uint64
	// FileDeep is the further layers' node counts a file header claims,
	// until the weights are read.
	FileDeep []int
}

// Checks are the root package's checks the model's checks call: Finite
// is scn's checkFinite (its error wraps scn.ErrData and names what and
// the index), Calibration scn's checkCalibration (a usable map of m
// classes).
type Checks struct {
	Finite      func(v []float64, what string) error
	Calibration func(c *calib.Calibration, m int) error
}

// Chans returns the input's planes C (1 for grey).
func (m *Model) Chans() int { return max(m.Channels, 1) }

// Nodes returns the hidden nodes L, every layer's.
func (m *Model) Nodes() int { return len(m.Bias) + deep.Nodes(m.Deep) + m.localOutputs() }

// IsClassifier reports whether the model predicts classes.
func (m *Model) IsClassifier() bool { return m.Classes != nil }

// DirectDim returns the direct features D, 0 without direct links.
func (m *Model) DirectDim() int {
	if m.Direct == nil {
		return 0
	}
	return direct.Dim(m.Channels, m.Rows, m.Cols, m.Direct.Pool)
}

// localOutputs returns the pooled outputs of a local model, 0 for others.
func (m *Model) localOutputs() int {
	if m.Local == nil {
		return 0
	}
	return m.Local.Outputs()
}

// Net returns a local model's layer on its images.
func (m *Model) Net() localnet.Net {
	return localnet.Net{Maps: localnet.Maps{Matrix: m.Kind.Input == kind.Matrix, Act: m.Activation}, Layer: m.Local, Rows: m.Rows, Cols: m.Cols, Chans: m.Chans()}
}

// Check reports whether the model's slices agree with its shapes and hold
// finite numbers (the further layers and the direct links checked before
// by the caller).
func (m *Model) Check(ck Checks) error {
	l := len(m.Bias)
	switch {
	case !m.Kind.Valid():
		return fmt.Errorf("scn: model of unknown kind %+v", m.Kind)
	case m.Rows < 1 || m.Cols < 1 || m.M < 1:
		return fmt.Errorf("scn: model shapes %d x %d -> %d", m.Rows, m.Cols, m.M)
	case m.Channels < 0 || m.Channels > modelfile.MaxChannels:
		return fmt.Errorf("scn: model of %d channels, want 0 ... %d", m.Channels, modelfile.MaxChannels)
	case len(m.Params) != l*m.PerNode || len(m.Beta) != m.Nodes()*m.M:
		return fmt.Errorf("scn: model holds %d parameters and %d output weights for %d nodes", len(m.Params), len(m.Beta), m.Nodes())
	case l == 0 && m.Local == nil && m.Direct == nil:
		return fmt.Errorf("scn: model has no nodes")
	}
	if err := m.checkLocal(); err != nil {
		return err
	}
	if !lsq.Finite32(m.Params) {
		return fmt.Errorf("scn: model has a non-finite hidden parameter")
	}
	if !lsq.Finite32(m.Bias) {
		return fmt.Errorf("scn: model has a non-finite bias")
	}
	if err := m.CheckCalib(ck); err != nil {
		return err
	}
	return ck.Finite(m.Beta, "output weight")
}

// checkLocal reports whether a local model's banks agree with its shapes
// and hold finite numbers.
func (m *Model) checkLocal() error {
	if m.Local == nil {
		return nil
	}
	if len(m.Params) != 0 || len(m.Bias) != 0 || len(m.Deep) != 0 {
		return fmt.Errorf("scn: a model of local nodes holds global nodes too")
	}
	return m.Net().Check()
}

// CheckCalib reports whether the model's calibration fields agree with it.
func (m *Model) CheckCalib(ck Checks) error {
	if c := m.Calibration; c != nil {
		if !m.IsClassifier() {
			return fmt.Errorf("scn: a regression model with a calibration map")
		}
		if err := ck.Calibration(c, m.M); err != nil {
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
		if err := classweight.Check(w, m.M); err != nil {
			return fmt.Errorf("scn: %w", err)
		}
	}
	return nil
}
