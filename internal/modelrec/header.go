package modelrec

import (
	"fmt"

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/calib"
	"github.com/scn2d/scn/internal/deep"
	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/kind"
	"github.com/scn2d/scn/internal/localnet"
	"github.com/scn2d/scn/internal/modelfile"
	"github.com/scn2d/scn/internal/node"
)

// Header returns the header of the model's file but for what the caller
// fills: the fit's
// configuration (Config), the selection and budget records and the local
// field's augmentation.
func (m *Model) Header() modelfile.Header {
	s := m.Summary
	h := modelfile.Header{
		Kind: m.Kind.String(), Activation: m.ActivationName,
		Rows: m.Rows, Cols: m.Cols, Channels: m.fileChannels(), Outputs: m.M, Nodes: len(m.Bias) + m.localOutputs(),
		Classes: m.Classes, Deep: m.FileLayers(), Local: m.fileLocal(),
		Summary: modelfile.Summary{
			Samples: s.Samples, Stop: s.Stop.String(), TrainRMSE: s.TrainRMSE,
			Tried: s.Tried, Rejected: s.Rejected,
		},
		Preprocessing: m.Preprocessing,
		Meta:          m.Meta,
		Direct:        direct.ToFile(m.Direct, m.Channels, m.Rows, m.Cols),
	}
	h.Calibration, h.Interval = calib.ToFile(m.Calibration, m.Interval)
	h.ClassWeights = m.ClassWeights
	return h
}

// fileChannels returns the header's channels: C for C > 1, else 0 (absent).
func (m *Model) fileChannels() int {
	if m.Chans() > 1 {
		return m.Channels
	}
	return 0
}

// fileLocal returns the header field of a local model (nil for others),
// with its augmentation (absent without).
func (m *Model) fileLocal() *modelfile.Local {
	if m.Local == nil {
		return nil
	}
	f := localnet.FileField(m.Local)
	if a := m.Augment; a != nil {
		f.Augment = &modelfile.Augment{Flip: a.Flip, Shift: a.Shift, Copies: a.Copies}
	}
	return f
}

// Version returns the format version of a model file of header h: 3 for
// models with an extension, else 1 for grey models, 2 for models of
// several channels.
func Version(h *modelfile.Header) uint32 {
	if Extended(h) {
		return modelfile.Version
	}
	if h.Channels > 1 {
		return modelfile.ColourVersion
	}
	return modelfile.GreyVersion
}

// Extended reports whether the model of header h uses an extension of
// format version 3: local nodes, a calibration field (map, interval,
// class weights), direct links, a selection record's direct links,
// growth record or direct-link curve rows, a budget's probe.
func Extended(h *modelfile.Header) bool {
	if h.Local != nil || h.Calibration != nil || h.Interval != nil || h.ClassWeights != nil || h.Direct != nil {
		return true
	}
	if h.Budget != nil && h.Budget.Probe != "" {
		return true
	}
	return h.Selection.UsesV3()
}

// FromHeader checks a header's claims (sizes, the nodes' values, further
// layers, local nodes, checkAugment checking the local field's
// augmentation, if any, against the images) for a model of kind k and activation act (named as the
// header names it) of perNode parameters per node, and returns the model without weights (nor the
// extensions Extensions adds). Its Meta and Preprocessing are the
// header's, as read; Augment and Seed the fit's.
func FromHeader(h *modelfile.Header, k kind.Kind, act node.Activation, perNode int, checkAugment func(a *augment.Spec, rows, cols int) error) (*Model, error) {
	if err := h.CheckSizes(); err != nil {
		return nil, err
	}
	if float64(h.Nodes)*float64(perNode+1+2*h.Outputs) > modelfile.MaxValues {
		return nil, fmt.Errorf("%w: header claims %d nodes of %d x %d inputs and %d outputs, too large", modelfile.ErrFormat, h.Nodes, h.Rows, h.Cols, h.Outputs)
	}
	deepNodes, err := h.CheckLayers()
	if err != nil {
		return nil, err
	}
	loc, aug, err := localOf(h, checkAugment)
	if err != nil {
		return nil, err
	}
	var stop drive.StopReason
	for i, s := range drive.StopNames {
		if s == h.Summary.Stop {
			stop = drive.StopReason(i)
		}
	}
	return &Model{
		Kind: k, Activation: act, ActivationName: h.Activation, Rows: h.Rows, Cols: h.Cols, Channels: h.Channels, M: h.Outputs,
		Classes: h.Classes, Meta: h.Meta, Preprocessing: h.Preprocessing,
		Params: make([]float32, 0), Bias: make([]float32, 0), Beta: make([]float64, 0),
		FileDeep: h.Deep, Local: loc, PerNode: perNode, Augment: aug, Seed: h.Config.Seed,
		Summary: drive.Summary{
			Nodes: h.Nodes + deepNodes, Samples: h.Summary.Samples, Stop: stop, TrainRMSE: h.Summary.TrainRMSE,
			Tried: h.Summary.Tried, Rejected: h.Summary.Rejected,
		},
	}, nil
}

// localOf checks a header's local field and returns the model's local
// layer without weights and its augmentation (nil when absent).
func localOf(h *modelfile.Header, checkAugment func(a *augment.Spec, rows, cols int) error) (*localnet.Layer, *augment.Spec, error) {
	f := h.Local
	if f == nil {
		return nil, nil, nil
	}
	g, err := localnet.GeometryOf(f, h.Rows, h.Cols, h.Channels)
	if err != nil {
		return nil, nil, err
	}
	var a *augment.Spec
	if fa := f.Augment; fa != nil {
		a = &augment.Spec{Flip: fa.Flip, Shift: fa.Shift, Copies: fa.Copies}
		if err := checkAugment(a, h.Rows, h.Cols); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", modelfile.ErrFormat, err)
		}
	}
	ll, err := localnet.LayerOf(f, g, h.Nodes)
	if err != nil {
		return nil, nil, err
	}
	if len(h.Deep) > 0 {
		return nil, nil, fmt.Errorf("%w: local nodes with further layers", modelfile.ErrFormat)
	}
	return ll, a, nil
}

// Extensions checks the header's direct links and calibration fields (of
// a file of format version v) and sets the model's, then checks the
// version against the extensions the header uses.
func (m *Model) Extensions(h *modelfile.Header, v uint32, ck Checks) error {
	d, err := direct.FromFile(h)
	if err != nil {
		return err
	}
	m.Direct = d
	if h.Calibration != nil || h.Interval != nil || h.ClassWeights != nil {
		c, iv, w, err := calib.FromFile(h, v)
		if err != nil {
			return err
		}
		m.Calibration, m.Interval, m.ClassWeights = c, iv, w
		if err := m.CheckCalib(ck); err != nil {
			return fmt.Errorf("%w: %v", modelfile.ErrFormat, err)
		}
	}
	switch {
	case v == modelfile.Version && !Extended(h):
		return fmt.Errorf("%w: version %d file without any extension of that version", modelfile.ErrFormat, v)
	case v != modelfile.Version && Extended(h):
		return fmt.Errorf("%w: version %d file with an extension of version %d", modelfile.ErrFormat, v, modelfile.Version)
	}
	return nil
}

// ExpectedNodes returns the first layer's node count of a model, or the
// header's claim for a model whose weights are not read yet.
func (m *Model) ExpectedNodes() int {
	if m.Local != nil {
		return 0
	}
	if len(m.Bias) > 0 {
		return len(m.Bias)
	}
	n := m.Summary.Nodes
	for _, c := range m.FileDeep {
		n -= c
	}
	return n
}

// FileLayers returns the further layers' node counts: the model's, or the
// header's claim for a model whose weights are not read yet.
func (m *Model) FileLayers() []int {
	if len(m.Bias) == 0 {
		return m.FileDeep
	}
	return deep.Counts(m.Deep)
}

// LayerSizes returns the node count per layer a header claims (FileDeep
// after the first layer's), nil for a one-layer network.
func (m *Model) LayerSizes() []int {
	if len(m.FileDeep) == 0 {
		return nil
	}
	return append([]int{m.ExpectedNodes()}, m.FileDeep...)
}

// FileBytes returns the size of the model's file with a header of hlen
// bytes: the preamble, the header, the payload, the 4-byte checksum.
func (m *Model) FileBytes(hlen int) int64 {
	return int64(modelfile.PreambleSize+hlen) + int64(m.PayloadSize()) + 4
}

// SecondFilters returns the filters the second layer of local nodes holds
// (0 without).
func (m *Model) SecondFilters() int {
	if m.Local == nil || m.Local.Second == nil {
		return 0
	}
	return m.Local.Second.Filters()
}
