package scn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/scn2d/scn/internal/atomicfile"
	"github.com/scn2d/scn/internal/deep"
	"github.com/scn2d/scn/internal/modelfile"
)

// The mapping between a Model and its file's record: the bytes, the
// header's record types and the container's checks are package
// internal/modelfile's (whose doc describes the format); what reads or
// sets a Model, and what checks a header's claims against the model they
// describe, is here and in format_*.go.

// maxChannels bounds a model's (and a preprocessing record's) channels.
const maxChannels = modelfile.MaxChannels

// ErrFormat is wrapped by every error about an unreadable model file.
var ErrFormat = modelfile.ErrFormat

// toFileChoice returns the header field of a selection record (nil for nil).
func toFileChoice(c *Choice) *modelfile.Choice {
	if c == nil {
		return nil
	}
	f := &modelfile.Choice{Method: c.Method, Held: c.Held, Folds: c.Folds, Metric: c.Metric, Nodes: c.Nodes,
		Ridge: c.Ridge, Accuracy: c.Accuracy, RMSE: c.RMSE, Refit: c.Refit, StoppedAt: c.StoppedAt, FitNodes: c.FitNodes}
	f.Curve = make([][]float64, len(c.Curve))
	for i, s := range c.Curve {
		f.Curve[i] = []float64{float64(s.Nodes), s.Ridge, s.Accuracy, s.RMSE}
		if s.Direct {
			f.Curve[i] = append(f.Curve[i], 1)
		}
	}
	f.Direct, f.Growth = c.Direct, c.Growth
	return f
}

// choiceOf returns the selection record of a header field (nil for nil).
func choiceOf(f *modelfile.Choice) (*Choice, error) {
	if f == nil {
		return nil, nil
	}
	c := &Choice{Method: f.Method, Held: f.Held, Folds: f.Folds, Metric: f.Metric, Nodes: f.Nodes,
		Ridge: f.Ridge, Accuracy: f.Accuracy, RMSE: f.RMSE, Refit: f.Refit, StoppedAt: f.StoppedAt,
		FitNodes: f.FitNodes, Candidates: len(f.Curve), Direct: f.Direct, Growth: f.Growth}
	for _, row := range f.Curve {
		if len(row) != 4 && (len(row) != 5 || row[4] != 1) {
			return nil, fmt.Errorf("%w: selection curve row of %d values, want 4 (or 5, the last 1: direct links)", ErrFormat, len(row))
		}
		c.Curve = append(c.Curve, Score{Nodes: int(row[0]), Ridge: row[1], Accuracy: row[2], RMSE: row[3], Direct: len(row) == 5})
	}
	return c, nil
}

// WriteTo writes the model in the project's binary format.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	if err := m.check(); err != nil {
		return 0, err
	}
	if err := m.Preprocessing.Validate(); err != nil {
		return 0, fmt.Errorf("scn: model preprocessing: %w", err)
	}
	if _, ok := m.Meta[legacyPreprocessKey]; ok {
		return 0, fmt.Errorf("scn: metadata key %q is reserved for the preprocessing record of older files; set Model.Preprocessing", legacyPreprocessKey)
	}
	h := m.header()
	return modelfile.Write(w, m.fileVersion(), &h, m.payloadSize(), func(b []byte) []byte {
		b = modelfile.AppendFloat32s(b, m.Params)
		b = modelfile.AppendFloat32s(b, m.Bias)
		l1 := len(m.Bias)
		b = modelfile.AppendFloat64s(b, m.Beta[:l1*m.M])
		b = deep.Append(b, m.Deep, m.Beta, l1, m.M)
		b = m.appendLocal(b)
		return m.appendDirect(b)
	})
}

// fileVersion returns the format version of the model's file: 3 for
// models with an extension, else 1 for grey models, 2 for models of
// several channels.
func (m *Model) fileVersion() uint32 {
	if m.extended() {
		return modelfile.Version
	}
	if m.Chans() > 1 {
		return modelfile.ColourVersion
	}
	return modelfile.GreyVersion
}

// Save writes the model to path atomically: to a temporary file in the
// same directory, synced, then renamed over path. A new file gets mode
// 0666 less the umask; a file that exists keeps its mode, and a symbolic
// link keeps pointing to the file it names, which is replaced. A path that
// names something other than a regular file or a folder (a device such as
// /dev/null, a named pipe) is written to directly, never replaced.
func (m *Model) Save(path string) error {
	if path == "" {
		return errors.New("scn: save: empty file name")
	}
	err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := m.WriteTo(w)
		return err
	})
	if err != nil {
		return wrapErr("save "+path, err)
	}
	return nil
}

// prefixedError is an error whose message says "scn: " once: what wraps it
// drops the "scn: " its message starts with.
type prefixedError struct {
	msg string
	err error
}

func (e *prefixedError) Error() string { return e.msg }
func (e *prefixedError) Unwrap() error { return e.err }

// wrapErr returns "scn: what: err", with err's own "scn: " prefix dropped
// from the message (it still wraps err).
func wrapErr(what string, err error) error {
	return &prefixedError{msg: "scn: " + what + ": " + strings.TrimPrefix(err.Error(), "scn: "), err: err}
}

// Load reads a model file written by Save.
func Load(path string) (*Model, error) {
	f, err := modelfile.Open(path, "load")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := Read(f)
	if err != nil {
		return nil, wrapErr("load "+path, err)
	}
	return m, nil
}

// Read reads one model in the project's format from r, which must hold
// nothing after it. Memory grows with the bytes actually read, never with
// what a header claims.
func Read(r io.Reader) (*Model, error) {
	var raw bytes.Buffer
	m, hlen, err := readHeader(r, &raw)
	if err != nil {
		return nil, err
	}
	payload, err := modelfile.ReadPayload(r, &raw, hlen, m.payloadSize())
	if err != nil {
		return nil, err
	}
	m.decodeWeights(payload)
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return m, nil
}

// readHeader reads the preamble and the header of a model file into raw and
// returns the model they describe, without weights, and the header length.
func readHeader(r io.Reader, raw *bytes.Buffer) (*Model, int, error) {
	h, v, hlen, err := modelfile.ReadHeader(r, raw)
	if err != nil {
		return nil, 0, err
	}
	m, err := headerModel(h)
	if err != nil {
		return nil, 0, err
	}
	if err := calibModel(h, m, v); err != nil {
		return nil, 0, err
	}
	switch {
	case v == modelfile.Version && !m.extended():
		return nil, 0, fmt.Errorf("%w: version %d file without any extension of that version", ErrFormat, v)
	case v != modelfile.Version && m.extended():
		return nil, 0, fmt.Errorf("%w: version %d file with an extension of version %d", ErrFormat, v, modelfile.Version)
	}
	return m, hlen, nil
}

// header describes the model for its file.
func (m *Model) header() modelfile.Header {
	c, s := m.Config, m.Summary
	h := modelfile.Header{
		Kind: m.Kind.String(), Activation: m.Activation.String(),
		Rows: m.Rows, Cols: m.Cols, Channels: m.fileChannels(), Outputs: m.M, Nodes: len(m.Bias) + m.localOutputs(),
		Classes: m.Classes, Deep: m.fileLayers(), Local: m.fileLocalOf(),
		Config: modelfile.Config{
			MaxNodes: c.MaxNodes, Tolerance: c.Tolerance, Candidates: c.Candidates,
			Scales: c.Scales, Ratios: c.Ratios, Seed: c.Seed, Ridge: c.Ridge, Preset: c.Preset, StopAtRank: c.StopAtRank,
			BlockSize: c.blockSize(), FieldMin: c.FieldMin, FieldMax: c.FieldMax,
			Standardize: c.Standardize, Differences: c.Differences, Float32Gram: c.Float32Gram, BF16Gram: c.BF16Gram, Pairs: c.Pairs,
			Robust: c.Robust, Layers: c.Layers, Redraw: c.Redraw, DirectLink: m.Direct != nil,
		},
		Summary: modelfile.Summary{
			Samples: s.Samples, Stop: s.Stop.String(), TrainRMSE: s.TrainRMSE,
			Tried: s.Tried, Rejected: s.Rejected,
		},
		Preprocessing: modelfile.Preprocessing(m.Preprocessing),
		Meta:          m.Meta,
		Selection:     toFileChoice(m.Selection),
		Budget:        toFileBudget(m.Budget),
		Direct:        m.fileDirect(),
	}
	m.calibHeader(&h)
	return h
}

// blockSize is the block size a model file records: BlockSize for block
// fits, 0 for one-node fits (BlockSize 0 and 1 are the same fit, and their
// files are the same bytes).
func (c Config) blockSize() int {
	if c.blockMode() {
		return c.BlockSize
	}
	return 0
}

// fileChannels returns the header's channels: C for C > 1, else 0 (absent).
func (m *Model) fileChannels() int {
	if m.Chans() > 1 {
		return m.Channels
	}
	return 0
}

// headerModel checks a header's claims and returns a model without weights.
func headerModel(h *modelfile.Header) (*Model, error) {
	kind, err := ParseKind(h.Kind)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	act, err := ParseActivation(h.Activation)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if err := h.CheckSizes(); err != nil {
		return nil, err
	}
	per := newNodeMap(kind.Input, h.Rows, h.Cols, h.Channels).Size()
	if float64(h.Nodes)*float64(per+1+2*h.Outputs) > modelfile.MaxValues {
		return nil, fmt.Errorf("%w: header claims %d nodes of %d x %d inputs and %d outputs, too large", ErrFormat, h.Nodes, h.Rows, h.Cols, h.Outputs)
	}
	deepNodes, err := h.CheckLayers()
	if err != nil {
		return nil, err
	}
	loc, err := localOf(h, kind)
	if err != nil {
		return nil, err
	}
	prep, meta := PreprocessRecord(h.Preprocessing), h.Meta
	if err := prep.Validate(); err != nil {
		return nil, fmt.Errorf("%w: preprocessing: %v", ErrFormat, err)
	}
	if prep == (PreprocessRecord{}) {
		if prep, meta, err = legacyPreprocessing(meta); err != nil {
			return nil, err
		}
	} else if _, ok := meta[legacyPreprocessKey]; ok {
		return nil, fmt.Errorf("%w: preprocessing recorded twice (header field and metadata key %q)", ErrFormat, legacyPreprocessKey)
	}
	var stop StopReason
	for i, s := range stopNames {
		if s == h.Summary.Stop {
			stop = StopReason(i)
		}
	}
	sel, err := choiceOf(h.Selection)
	if err != nil {
		return nil, err
	}
	bud, err := budgetOf(h.Budget)
	if err != nil {
		return nil, err
	}
	direct, err := directOf(h)
	if err != nil {
		return nil, err
	}
	c := h.Config
	return &Model{
		Selection: sel, Budget: bud, Direct: direct,
		Kind: kind, Activation: act, Rows: h.Rows, Cols: h.Cols, Channels: h.Channels, M: h.Outputs,
		Classes: h.Classes, Meta: meta, Preprocessing: prep,
		Params: make([]float32, 0), Bias: make([]float32, 0), Beta: make([]float64, 0),
		Config: Config{
			Kind: kind, MaxNodes: c.MaxNodes, Tolerance: c.Tolerance, Candidates: c.Candidates,
			Scales: c.Scales, Ratios: c.Ratios, Activation: act, Seed: c.Seed, Ridge: c.Ridge, Preset: c.Preset, StopAtRank: c.StopAtRank,
			BlockSize: c.BlockSize, FieldMin: c.FieldMin, FieldMax: c.FieldMax,
			Standardize: c.Standardize, Differences: c.Differences, Float32Gram: c.Float32Gram, BF16Gram: c.BF16Gram, Pairs: c.Pairs,
			Robust: c.Robust, Layers: c.Layers, Local: loc.CloneGeometry(), Redraw: c.Redraw, DirectLink: c.DirectLink,
			Augment: augmentOrNil(h.Local),
		},
		fileDeep: h.Deep, Local: loc,
		Summary: Summary{
			Nodes: h.Nodes + deepNodes, Samples: h.Summary.Samples, Stop: stop, TrainRMSE: h.Summary.TrainRMSE,
			Tried: h.Summary.Tried, Rejected: h.Summary.Rejected,
		},
	}, nil
}

// payloadSize returns the bytes of the model's weights in a file.
func (m *Model) payloadSize() int {
	l := m.expectedNodes()
	size := l*m.ParamsPerNode()*4 + l*4 + l*m.M*8
	size += deep.FileBytes(m.fileLayers(), l, m.M)
	return size + m.localPayload() + m.DirectDim()*m.M*8
}

// expectedNodes returns the first layer's node count of a model, or the
// header's claim for a model whose weights are not read yet.
func (m *Model) expectedNodes() int {
	if m.Local != nil {
		return 0
	}
	if len(m.Bias) > 0 {
		return len(m.Bias)
	}
	n := m.Summary.Nodes
	for _, c := range m.fileDeep {
		n -= c
	}
	return n
}

// fileLayers returns the further layers' node counts: the model's, or the
// header's claim for a model whose weights are not read yet.
func (m *Model) fileLayers() []int {
	if len(m.Bias) == 0 {
		return m.fileDeep
	}
	return deep.Counts(m.Deep)
}

// decodeWeights fills Params, Bias and Beta from the payload b.
func (m *Model) decodeWeights(b []byte) {
	r := modelfile.NewPayloadReader(b)
	l := m.expectedNodes()
	m.Params = r.F32(l * m.ParamsPerNode())
	m.Bias = r.F32(l)
	total := l
	for _, c := range m.fileDeep {
		total += c
	}
	m.Beta = make([]float64, total*m.M)
	r.F64(m.Beta[:l*m.M])
	m.Deep = deep.Read(r, m.fileDeep, m.Beta, l, m.M)
	m.decodeLocal(r.Rest())
	m.fileDeep = nil
	if m.Direct != nil {
		m.Direct.Beta = make([]float64, m.DirectDim()*m.M)
		r.F64(m.Direct.Beta)
	}
}

// check reports whether the model's slices agree with its shapes and hold
// finite numbers.
func (m *Model) check() error {
	l := len(m.Bias)
	if err := m.checkDeep(); err != nil {
		return err
	}
	if err := m.checkDirect(); err != nil {
		return err
	}
	switch {
	case !m.Kind.Valid():
		return fmt.Errorf("scn: model of unknown kind %+v", m.Kind)
	case m.Rows < 1 || m.Cols < 1 || m.M < 1:
		return fmt.Errorf("scn: model shapes %d x %d -> %d", m.Rows, m.Cols, m.M)
	case m.Channels < 0 || m.Channels > maxChannels:
		return fmt.Errorf("scn: model of %d channels, want 0 ... %d", m.Channels, maxChannels)
	case len(m.Params) != l*m.ParamsPerNode() || len(m.Beta) != m.Nodes()*m.M:
		return fmt.Errorf("scn: model holds %d parameters and %d output weights for %d nodes", len(m.Params), len(m.Beta), m.Nodes())
	case l == 0 && m.Local == nil && m.Direct == nil:
		return fmt.Errorf("scn: model has no nodes")
	}
	if err := m.checkLocal(); err != nil {
		return err
	}
	if !finite32(m.Params) {
		return fmt.Errorf("scn: model has a non-finite hidden parameter")
	}
	if !finite32(m.Bias) {
		return fmt.Errorf("scn: model has a non-finite bias")
	}
	if err := m.checkCalib(); err != nil {
		return err
	}
	return checkFinite(m.Beta, "output weight")
}
