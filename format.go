package scn

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/classweight"
	"github.com/scn2d/scn/internal/modelfile"
	"github.com/scn2d/scn/internal/modelrec"
	"github.com/scn2d/scn/internal/node"
)

// The mapping between a Model and its file's record: the bytes, the
// header's record types and the container's checks are package
// internal/modelfile's (whose doc describes the format); the model as
// plain data, the checks of a header's claims against the model they
// describe, the version decision and the payload's sections are
// internal/modelrec's; what reads or sets a Model (rec, readHeader) and
// the header fields only this package knows are here (the budget
// record's in format_budget.go).

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
	r := m.rec()
	h := m.header(r)
	return r.Write(w, &h)
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
	return modelrec.Save(path, m)
}

// wrapErr returns "scn: what: err", with err's own "scn: " prefix dropped
// from the message (modelrec.Wrap).
func wrapErr(what string, err error) error { return modelrec.Wrap(what, err) }

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
	m, rec, hlen, err := readHeader(r, &raw)
	if err != nil {
		return nil, err
	}
	payload, err := modelfile.ReadPayload(r, &raw, hlen, rec.PayloadSize())
	if err != nil {
		return nil, err
	}
	rec.Decode(payload)
	m.Params, m.Bias, m.Beta, m.Deep = rec.Params, rec.Bias, rec.Beta, rec.Deep
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return m, nil
}

// header describes the model of record r (m.rec()) for its file.
func (m *Model) header(r *modelrec.Model) modelfile.Header {
	c := m.Config
	h := r.Header()
	h.Config = modelfile.Config{
		MaxNodes: c.MaxNodes, Tolerance: c.Tolerance, Candidates: c.Candidates,
		Scales: c.Scales, Ratios: c.Ratios, Seed: c.Seed, Ridge: c.Ridge, Preset: c.Preset, StopAtRank: c.StopAtRank,
		BlockSize: c.blockSize(), FieldMin: c.FieldMin, FieldMax: c.FieldMax,
		Standardize: c.Standardize, Differences: c.Differences, Float32Gram: c.Float32Gram, BF16Gram: c.BF16Gram, Pairs: c.Pairs,
		Robust: c.Robust, Layers: c.Layers, Redraw: c.Redraw, DirectLink: m.Direct != nil,
	}
	h.Selection, h.Budget = toFileChoice(m.Selection), toFileBudget(m.Budget)
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

// readHeader reads the preamble and the header of a model file into raw,
// checks the header's claims and returns the model they describe without
// weights, its record (whose FileDeep holds the further layers' node
// counts the header claims) and the header length (internal/modelrec's
// FromHeader and Extensions check what the root does not know).
func readHeader(rd io.Reader, raw *bytes.Buffer) (*Model, *modelrec.Model, int, error) {
	h, v, hlen, err := modelfile.ReadHeader(rd, raw)
	if err != nil {
		return nil, nil, 0, err
	}
	kind, err := ParseKind(h.Kind)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	act, err := ParseActivation(h.Activation)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	r, err := modelrec.FromHeader(h, kind, node.Activation(act), newNodeMap(kind.Input, h.Rows, h.Cols, h.Channels).Size(), forImages)
	if err != nil {
		return nil, nil, 0, err
	}
	prep, meta := PreprocessRecord(h.Preprocessing), h.Meta
	if err := prep.Validate(); err != nil {
		return nil, nil, 0, fmt.Errorf("%w: preprocessing: %v", ErrFormat, err)
	}
	if prep == (PreprocessRecord{}) {
		if prep, meta, err = legacyPreprocessing(meta); err != nil {
			return nil, nil, 0, err
		}
	} else if _, ok := meta[legacyPreprocessKey]; ok {
		return nil, nil, 0, fmt.Errorf("%w: preprocessing recorded twice (header field and metadata key %q)", ErrFormat, legacyPreprocessKey)
	}
	sel, err := choiceOf(h.Selection)
	if err != nil {
		return nil, nil, 0, err
	}
	bud, err := budgetOf(h.Budget)
	if err != nil {
		return nil, nil, 0, err
	}
	if err := r.Extensions(h, v, modelChecks); err != nil {
		return nil, nil, 0, err
	}
	c := h.Config
	m := &Model{
		Selection: sel, Budget: bud, Direct: r.Direct, Calibration: r.Calibration, Interval: r.Interval, ClassWeights: r.ClassWeights,
		Kind: kind, Activation: act, Rows: h.Rows, Cols: h.Cols, Channels: h.Channels, M: h.Outputs,
		Classes: h.Classes, Meta: meta, Preprocessing: prep, Params: r.Params, Bias: r.Bias, Beta: r.Beta,
		Config: Config{
			Kind: kind, MaxNodes: c.MaxNodes, Tolerance: c.Tolerance, Candidates: c.Candidates,
			Scales: c.Scales, Ratios: c.Ratios, Activation: act, Seed: c.Seed, Ridge: c.Ridge, Preset: c.Preset, StopAtRank: c.StopAtRank,
			BlockSize: c.BlockSize, FieldMin: c.FieldMin, FieldMax: c.FieldMax,
			Standardize: c.Standardize, Differences: c.Differences, Float32Gram: c.Float32Gram, BF16Gram: c.BF16Gram, Pairs: c.Pairs,
			Robust: c.Robust, Layers: c.Layers, Local: r.Local.CloneGeometry(), Redraw: c.Redraw, DirectLink: c.DirectLink,
			Augment: (*Augment)(r.Augment),
		},
		Local: r.Local, Summary: r.Summary,
	}
	return m, r, hlen, nil
}

// forImages is Augment.ForImages of an augmentation (modelrec's hook).
func forImages(a *augment.Spec, rows, cols int) error { return (*Augment)(a).ForImages(rows, cols) }

// modelChecks are the root's checks of a model's values (modelrec.Check).
var modelChecks = modelrec.Checks{Finite: checkFinite, Calibration: checkCalibration}

// checkWeights reports whether w holds m finite class weights > 0
// (classweight.Check).
func checkWeights(w []float64, m int) error { return classweight.Check(w, m) }

// rec returns the model as internal/modelrec's record (sharing its
// slices).
func (m *Model) rec() *modelrec.Model {
	return &modelrec.Model{
		Kind: m.Kind, Activation: node.Activation(m.Activation), ActivationName: m.Activation.String(),
		Rows: m.Rows, Cols: m.Cols, Channels: m.Channels, M: m.M, Classes: m.Classes,
		Params: m.Params, Bias: m.Bias, Beta: m.Beta, Deep: m.Deep, Local: m.Local,
		Calibration: m.Calibration, Interval: m.Interval, ClassWeights: m.ClassWeights, Direct: m.Direct,
		Summary: m.Summary, Meta: m.Meta, Preprocessing: modelfile.Preprocessing(m.Preprocessing),
		PerNode: m.ParamsPerNode(), Augment: (*augment.Spec)(m.Config.Augment), Seed: m.Config.Seed,
	}
}

// check reports whether the model's slices agree with its shapes and hold
// finite numbers.
func (m *Model) check() error {
	if err := m.checkDeep(); err != nil {
		return err
	}
	if err := m.checkDirect(); err != nil {
		return err
	}
	return m.rec().Check(modelChecks)
}
