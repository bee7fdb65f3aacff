package scn

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"strings"

	"github.com/scn2d/scn/internal/atomicfile"
)

// Model files (format versions 1 and 2) are little-endian:
//
//	offset  size  content
//	0       8     magic "2DSCNMDL"
//	8       4     format version (uint32), 1 or 2
//	12      4     header length H (uint32), at most 1 MiB
//	16      H     header: UTF-8 JSON (fileHeader): kind, activation, shapes,
//	              channels (version 2), nodes, outputs, class names,
//	              configuration (preset, seed, lists), training summary,
//	              preprocessing, metadata
//	16+H    ...   Params: L x P float32 (P = C*d1*d2 for vector learners,
//	              d1+d2 for matrix ones: u then v, d1+d2+C with C > 1
//	              channels: u, v, then w)
//	        ...   Bias: L float32
//	        ...   Beta: L x M float64
//	        ...   deep models only (header "deep": [L_2, ...], the further
//	              layers' node counts; L above is the first layer's), per
//	              further layer k: its weights L_k x L_{k-1} float32, its
//	              biases L_k float32, its rows of the output weights
//	              L_k x M float64
//	end-4   4     CRC-32 (Castagnoli) of every byte before it (uint32)
//
// A reader refuses a file whose magic, version, header, sizes or checksum are
// wrong, before allocating anything the file cannot hold. The header's
// preprocessing field is absent when the images were used as read; files
// written before it existed kept the record as JSON text under the metadata
// key "preprocess", which Read and ReadInfo move to Model.Preprocessing.
//
// Version 2 is version 1 with the header field "channels" (C >= 2): a model
// of colour (or any multi-plane) input. A grey model is written as version
// 1 without the field, the bytes it had before channels existed; a version
// 1 file with the field, or a version 2 file without it, is refused.
//
// Version 3 is written for a model that uses an extension of this round,
// and only then: local nodes (format_local.go; with whitened patches, the
// header's "local" has "whiten" and "whiten_eps" and each bank's
// whitening matrix follows the local sections), the calibration map,
// conformal interval and class weights (format_calib.go), direct links
// (format_direct.go: the header field "direct" and, after the local nodes'
// sections, the direct-link weights D x M float64; such a model may have
// zero hidden nodes) and a selection record with direct-link curve rows or
// a growth record. Its header may or may not have channels. An extension is an optional header field plus, when
// it needs large arrays, sections after all of the above, before the CRC. A
// model that uses none is written as version 1 or 2, as before.

const (
	magic         = "2DSCNMDL"
	formatVersion = 3 // the newest version this build reads and writes
	colourVersion = 2 // the version of colour models' files without extensions
	greyVersion   = 1 // the version of grey models' files
	maxHeader     = 1 << 20
	preambleSize  = 16
	// maxChannels bounds a model's (and a preprocessing record's)
	// channels: the readers refuse more than 1024 planes per image.
	maxChannels = 1024
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrFormat is wrapped by every error about an unreadable model file.
var ErrFormat = errors.New("scn: bad model file")

type fileConfig struct {
	MaxNodes   int       `json:"max_nodes"`
	Tolerance  float64   `json:"tolerance"`
	Candidates int       `json:"candidates"`
	Scales     []float64 `json:"scales"`
	Ratios     []float64 `json:"ratios"`
	Seed       uint64    `json:"seed"`
	Ridge      float64   `json:"ridge"`
	Preset     string    `json:"preset"`
	// The block engine's settings; absent (zero) for one-node fits, so
	// their files are unchanged.
	BlockSize   int  `json:"block_size,omitempty"`
	FieldMin    int  `json:"field_min,omitempty"`
	FieldMax    int  `json:"field_max,omitempty"`
	Standardize bool `json:"standardize,omitempty"`
	Differences bool `json:"differences,omitempty"`
	Float32Gram bool `json:"float32_gram,omitempty"`
	BF16Gram    bool `json:"bf16_gram,omitempty"`
	Pairs       bool `json:"pairs,omitempty"`
	StopAtRank  bool `json:"stop_at_rank,omitempty"`
	Robust      bool `json:"robust,omitempty"`
	Redraw      bool `json:"redraw,omitempty"`
	// Layers is Config.Layers, absent for one-layer networks.
	Layers []int `json:"layers,omitempty"`
	// DirectLink is Config.DirectLink (version 3), absent without it.
	DirectLink bool `json:"direct_link,omitempty"`
}

type fileSummary struct {
	Samples   int     `json:"samples"`
	Stop      string  `json:"stop"`
	TrainRMSE float64 `json:"train_rmse"`
	Tried     int     `json:"tried"`
	Rejected  int     `json:"rejected"`
}

// fileHeader is the JSON header of a model file.
type fileHeader struct {
	Kind       string `json:"kind"`
	Activation string `json:"activation"`
	Rows       int    `json:"rows"`
	Cols       int    `json:"cols"`
	// Channels is the input's planes C, present (>= 2) in version 2 files
	// only: grey models' headers are unchanged.
	Channels int         `json:"channels,omitempty"`
	Outputs  int         `json:"outputs"`
	Nodes    int         `json:"nodes"`
	Classes  []string    `json:"classes,omitempty"`
	Config   fileConfig  `json:"config"`
	Summary  fileSummary `json:"summary"`
	// Preprocessing is omitted when zero, so that files of models without
	// preprocessing are the bytes they were before the field existed.
	Preprocessing PreprocessRecord  `json:"preprocessing,omitzero"`
	Meta          map[string]string `json:"meta,omitempty"`
	Selection     *fileChoice       `json:"selection,omitempty"`
	Budget        *fileBudget       `json:"budget,omitempty"`
	// Deep holds the node counts of a deep model's further layers (Nodes
	// is the first layer's), absent for one-layer networks.
	Deep []int `json:"deep,omitempty"`
	// Local is the geometry of a model of local nodes (format_local.go).
	Local *fileLocal `json:"local,omitempty"`
	// Version 3 extensions (format_calib.go).
	Calibration  *fileCalibration `json:"calibration,omitempty"`
	Interval     *fileInterval    `json:"interval,omitempty"`
	ClassWeights []float64        `json:"class_weights,omitempty"`
	// Direct describes the direct links (version 3), absent without them.
	Direct *fileDirect `json:"direct,omitempty"`
}

// fileChoice is a model's Choice in its file header.
type fileChoice struct {
	Method    string      `json:"method"`
	Held      int         `json:"held_out"`
	Folds     int         `json:"folds"`
	Metric    string      `json:"metric"`
	Nodes     int         `json:"nodes"`
	Ridge     float64     `json:"ridge"`
	Accuracy  float64     `json:"accuracy"`
	RMSE      float64     `json:"rmse"`
	Refit     string      `json:"refit"`
	StoppedAt int         `json:"stopped_at,omitempty"`
	FitNodes  int         `json:"fit_nodes"`
	Curve     [][]float64 `json:"curve"` // rows of [nodes, ridge, accuracy, rmse] (and 1 for direct links, version 3)
	// Version 3: the choice has direct links; why growth past L_max stopped.
	Direct bool   `json:"direct,omitempty"`
	Growth string `json:"growth,omitempty"`
}

func toFileChoice(c *Choice) *fileChoice {
	if c == nil {
		return nil
	}
	f := &fileChoice{Method: c.Method, Held: c.Held, Folds: c.Folds, Metric: c.Metric, Nodes: c.Nodes,
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

func (f *fileChoice) choice() (*Choice, error) {
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
	hdr, err := json.Marshal(m.header())
	if err != nil {
		return 0, fmt.Errorf("scn: encode header: %w", err)
	}
	if len(hdr) > maxHeader {
		return 0, fmt.Errorf("scn: model header of %d bytes exceeds %d", len(hdr), maxHeader)
	}
	var buf bytes.Buffer
	buf.Grow(preambleSize + len(hdr) + m.payloadSize() + 4)
	buf.WriteString(magic)
	le := binary.LittleEndian
	buf.Write(le.AppendUint32(nil, m.fileVersion()))
	buf.Write(le.AppendUint32(nil, uint32(len(hdr))))
	buf.Write(hdr)
	b := appendFloat32s(buf.AvailableBuffer(), m.Params)
	b = appendFloat32s(b, m.Bias)
	l1 := len(m.Bias)
	b = appendFloat64s(b, m.Beta[:l1*m.M])
	for _, ly := range m.Deep {
		b = appendFloat32s(b, ly.Params)
		b = appendFloat32s(b, ly.Bias)
		b = appendFloat64s(b, m.Beta[l1*m.M:(l1+ly.Nodes())*m.M])
		l1 += ly.Nodes()
	}
	b = m.appendLocal(b)
	b = m.appendDirect(b)
	buf.Write(b)
	return writeChecked(w, &buf)
}

// fileVersion returns the format version of the model's file: 3 for
// models with an extension, else 1 for grey models, 2 for models of
// several channels.
func (m *Model) fileVersion() uint32 {
	if m.extended() {
		return formatVersion
	}
	if m.Chans() > 1 {
		return colourVersion
	}
	return greyVersion
}

// appendFloat32s appends v little-endian.
func appendFloat32s(b []byte, v []float32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// appendFloat64s appends v little-endian.
func appendFloat64s(b []byte, v []float64) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// writeChecked appends the CRC-32 (Castagnoli) of buf's bytes to them and
// writes them to w: the end of every file the package writes.
func writeChecked(w io.Writer, buf *bytes.Buffer) (int64, error) {
	buf.Write(binary.LittleEndian.AppendUint32(nil, crc32.Checksum(buf.Bytes(), castagnoli)))
	n, err := w.Write(buf.Bytes())
	return int64(n), err
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
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scn: load: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("scn: load %s: is a directory, not a model file", path)
	}
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
	body := int64(m.payloadSize()) + 4
	if n, err := io.CopyN(&raw, r, body); err != nil {
		return nil, fmt.Errorf("%w: truncated weights (%d of %d bytes)", ErrFormat, n, body)
	}
	if n, _ := io.CopyN(io.Discard, r, 1); n != 0 {
		return nil, fmt.Errorf("%w: data after the checksum", ErrFormat)
	}
	all := raw.Bytes()
	end := len(all) - 4
	le := binary.LittleEndian
	if got, want := crc32.Checksum(all[:end], castagnoli), le.Uint32(all[end:]); got != want {
		return nil, fmt.Errorf("%w: checksum mismatch (file says %08x, content gives %08x)", ErrFormat, want, got)
	}
	m.decodeWeights(all[preambleSize+hlen : end])
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return m, nil
}

// readHeader reads the preamble and the header of a model file into raw and
// returns the model they describe, without weights, and the header length.
func readHeader(r io.Reader, raw *bytes.Buffer) (*Model, int, error) {
	if _, err := io.CopyN(raw, r, preambleSize); err != nil {
		return nil, 0, fmt.Errorf("%w: truncated preamble (%d of %d bytes)", ErrFormat, raw.Len(), preambleSize)
	}
	pre := raw.Bytes()
	if string(pre[:8]) != magic {
		return nil, 0, fmt.Errorf("%w: wrong magic %q, not a model file", ErrFormat, pre[:8])
	}
	le := binary.LittleEndian
	v := le.Uint32(pre[8:])
	if v < greyVersion || v > formatVersion {
		return nil, 0, fmt.Errorf("%w: format version %d, this build reads versions %d to %d", ErrFormat, v, greyVersion, formatVersion)
	}
	hlen := int64(le.Uint32(pre[12:]))
	if hlen > maxHeader {
		return nil, 0, fmt.Errorf("%w: header length %d exceeds %d", ErrFormat, hlen, maxHeader)
	}
	if n, err := io.CopyN(raw, r, hlen); err != nil {
		return nil, 0, fmt.Errorf("%w: truncated header (%d of %d bytes)", ErrFormat, n, hlen)
	}
	var h fileHeader
	dec := json.NewDecoder(bytes.NewReader(raw.Bytes()[preambleSize:]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, 0, fmt.Errorf("%w: header: %v", ErrFormat, err)
	}
	switch {
	case v == greyVersion && h.Channels != 0:
		return nil, 0, fmt.Errorf("%w: version %d file with %d channels (channels need version %d)", ErrFormat, v, h.Channels, colourVersion)
	case v == colourVersion && (h.Channels < 2 || h.Channels > maxChannels):
		return nil, 0, fmt.Errorf("%w: version %d file with channels = %d, want 2 ... %d", ErrFormat, v, h.Channels, maxChannels)
	case v == formatVersion && (h.Channels == 1 || h.Channels < 0 || h.Channels > maxChannels):
		return nil, 0, fmt.Errorf("%w: version %d file with channels = %d, want absent or 2 ... %d", ErrFormat, v, h.Channels, maxChannels)
	case v != formatVersion && h.usesV3():
		return nil, 0, fmt.Errorf("%w: version %d file with fields of version %d", ErrFormat, v, formatVersion)
	}
	m, err := h.model()
	if err != nil {
		return nil, 0, err
	}
	if err := h.calibModel(m, v); err != nil {
		return nil, 0, err
	}
	switch {
	case v == formatVersion && !m.extended():
		return nil, 0, fmt.Errorf("%w: version %d file without any extension of that version", ErrFormat, v)
	case v != formatVersion && m.extended():
		return nil, 0, fmt.Errorf("%w: version %d file with an extension of version %d", ErrFormat, v, formatVersion)
	}
	return m, int(hlen), nil
}

// header describes the model for its file.
func (m *Model) header() fileHeader {
	c, s := m.Config, m.Summary
	h := fileHeader{
		Kind: m.Kind.String(), Activation: m.Activation.String(),
		Rows: m.Rows, Cols: m.Cols, Channels: m.fileChannels(), Outputs: m.M, Nodes: len(m.Bias) + m.localOutputs(),
		Classes: m.Classes, Deep: m.fileLayers(), Local: m.fileLocalOf(),
		Config: fileConfig{
			MaxNodes: c.MaxNodes, Tolerance: c.Tolerance, Candidates: c.Candidates,
			Scales: c.Scales, Ratios: c.Ratios, Seed: c.Seed, Ridge: c.Ridge, Preset: c.Preset, StopAtRank: c.StopAtRank,
			BlockSize: c.blockSize(), FieldMin: c.FieldMin, FieldMax: c.FieldMax,
			Standardize: c.Standardize, Differences: c.Differences, Float32Gram: c.Float32Gram, BF16Gram: c.BF16Gram, Pairs: c.Pairs,
			Robust: c.Robust, Layers: c.Layers, Redraw: c.Redraw, DirectLink: m.Direct != nil,
		},
		Summary: fileSummary{
			Samples: s.Samples, Stop: s.Stop.String(), TrainRMSE: s.TrainRMSE,
			Tried: s.Tried, Rejected: s.Rejected,
		},
		Preprocessing: m.Preprocessing,
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

// maxModelValues bounds what a header may claim (2^33 values is 32 GiB of
// float32), so that sizes cannot overflow.
const maxModelValues = 1 << 33

// model checks a header's claims and returns a model without weights.
func (h fileHeader) model() (*Model, error) {
	kind, err := ParseKind(h.Kind)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	act, err := ParseActivation(h.Activation)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	for _, v := range []struct {
		name string
		n    int
	}{{"rows", h.Rows}, {"cols", h.Cols}, {"outputs", h.Outputs}, {"nodes", h.Nodes}} {
		if v.n < 1 && !(v.name == "nodes" && v.n == 0 && h.Direct != nil && len(h.Deep) == 0) || v.n > maxModelValues {
			return nil, fmt.Errorf("%w: %s = %d", ErrFormat, v.name, v.n)
		}
	}
	if h.Classes != nil && len(h.Classes) != h.Outputs {
		return nil, fmt.Errorf("%w: %d class names for %d outputs", ErrFormat, len(h.Classes), h.Outputs)
	}
	if float64(max(h.Channels, 1))*float64(h.Rows)*float64(h.Cols) > maxModelValues {
		return nil, fmt.Errorf("%w: header claims inputs of %d x %d x %d, too large", ErrFormat, h.Rows, h.Cols, max(h.Channels, 1))
	}
	per := newNodeMap(kind.Input, h.Rows, h.Cols, h.Channels).Size()
	if float64(h.Nodes)*float64(per+1+2*h.Outputs) > maxModelValues {
		return nil, fmt.Errorf("%w: header claims %d nodes of %d x %d inputs and %d outputs, too large", ErrFormat, h.Nodes, h.Rows, h.Cols, h.Outputs)
	}
	deepNodes, err := checkFileLayers(h)
	if err != nil {
		return nil, err
	}
	loc, err := h.localOf(kind)
	if err != nil {
		return nil, err
	}
	prep, meta := h.Preprocessing, h.Meta
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
	sel, err := h.Selection.choice()
	if err != nil {
		return nil, err
	}
	bud, err := h.Budget.record()
	if err != nil {
		return nil, err
	}
	direct, err := h.direct()
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
			Robust: c.Robust, Layers: c.Layers, Local: loc.geometry(), Redraw: c.Redraw, DirectLink: c.DirectLink,
			Augment: h.Local.augmentOrNil(),
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
	prev := l
	for _, c := range m.fileLayers() {
		size += c*prev*4 + c*4 + c*m.M*8
		prev = c
	}
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
	var s []int
	for _, l := range m.Deep {
		s = append(s, l.Nodes())
	}
	return s
}

// checkFileLayers checks the further layers a header claims and returns
// their nodes in all.
func checkFileLayers(h fileHeader) (int, error) {
	total, values, prev := 0, 0.0, float64(h.Nodes)
	for k, c := range h.Deep {
		if c < 1 || c > maxModelValues {
			return 0, fmt.Errorf("%w: layer %d of %d nodes", ErrFormat, k+2, c)
		}
		values += float64(c) * (prev + 1 + 2*float64(h.Outputs))
		if values > maxModelValues {
			return 0, fmt.Errorf("%w: header claims further layers too large", ErrFormat)
		}
		total += c
		prev = float64(c)
	}
	return total, nil
}

// decodeWeights fills Params, Bias and Beta from the payload b.
func (m *Model) decodeWeights(b []byte) {
	r := &payloadReader{b: b}
	l := m.expectedNodes()
	m.Params = r.f32(l * m.ParamsPerNode())
	m.Bias = r.f32(l)
	total := l
	for _, c := range m.fileDeep {
		total += c
	}
	m.Beta = make([]float64, total*m.M)
	r.f64(m.Beta[:l*m.M])
	prev, off := l, l
	for _, c := range m.fileDeep {
		ly := Layer{Params: r.f32(c * prev), Bias: r.f32(c)}
		r.f64(m.Beta[off*m.M : (off+c)*m.M])
		m.Deep = append(m.Deep, ly)
		prev, off = c, off+c
	}
	m.decodeLocal(r.b)
	m.fileDeep = nil
	if m.Direct != nil {
		m.Direct.Beta = make([]float64, m.DirectDim()*m.M)
		r.f64(m.Direct.Beta)
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
	case !m.Kind.valid():
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
	for _, v := range m.Params {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("scn: model has a non-finite hidden parameter")
		}
	}
	for _, v := range m.Bias {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("scn: model has a non-finite bias")
		}
	}
	if err := m.checkCalib(); err != nil {
		return err
	}
	return checkFinite(m.Beta, "output weight")
}
