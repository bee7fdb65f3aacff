package scn

import (
	"bytes"
	"fmt"
	"io"

	"github.com/scn2d/scn/internal/deep"
	"github.com/scn2d/scn/internal/modelfile"
)

// Info is what a model file's header says about the model, without its
// weights: ReadInfo and LoadInfo read it as image.DecodeConfig reads an
// image's size, which lets a tool list or describe many model files (scn
// inspect, a server's model listing, the model-size experiment) reading a
// few kilobytes of each.
type Info struct {
	Kind       Kind
	Activation Activation
	Rows, Cols int // input image shape d1 x d2
	Channels   int // input planes C (0 or 1: grey), as Model.Channels
	M          int // outputs m
	Nodes      int // hidden nodes L (every layer's)
	// Layers holds a deep model's node count per layer, the first
	// included; nil for one-layer networks.
	Layers  []int
	Classes []string // class names for classification, nil for regression

	Config        Config            // hyper-parameters the model was fitted with
	Summary       Summary           // how the fit went
	Preprocessing PreprocessRecord  // how the training images were prepared
	Meta          map[string]string // free-form metadata
	Selection     *Choice           // how L and the ridge term were chosen, nil without selection
	Budget        *BudgetRecord     // the plan of a fit within a time budget, nil for other fits
	// Local is the geometry of a model of local nodes (nil for global
	// nodes) and LocalFilters the filters each of its banks holds.
	Local        *Local
	LocalFilters []int
	// SecondFilters is the filters the second layer of local nodes
	// holds (Local.Second; 0 without).
	SecondFilters int
	// Calibration, Interval and ClassWeights are the model's (nil
	// without; see Model).
	Calibration  *Calibration
	Interval     *Interval
	ClassWeights []float64
	// DirectPool and DirectFeatures describe the direct links (see
	// DirectLink): the pooling side and the features D, 0 without them.
	DirectPool, DirectFeatures int

	// HeaderBytes is the length of the JSON header; FileBytes the size of
	// the whole file the header describes (16-byte preamble, header,
	// weights, 4-byte checksum).
	HeaderBytes int
	FileBytes   int64
}

// ParamsPerNode returns the hidden parameters per node, the bias excluded:
// C*d1*d2 for vector learners, d1+d2 for matrix ones (d1+d2+C with C > 1
// channels).
func (in Info) ParamsPerNode() int {
	return newNodeMap(in.Kind.Input, in.Rows, in.Cols, in.Channels).Size()
}

// Chans returns the input's planes C (1 for grey).
func (in Info) Chans() int { return max(in.Channels, 1) }

// ParamCount returns every trained number: L*(ParamsPerNode+1+M), with a
// deep model's further layers counted as Model.ParamCount does, and the direct
// links' D x M weights.
func (in Info) ParamCount() int {
	if in.Local != nil {
		return mapsOf(in.Kind.Input, 0).ParamCountOf(in.Local, in.LocalFilters, in.SecondFilters, in.Nodes, in.M, in.Rows, in.Cols, in.Chans())
	}
	if len(in.Layers) == 0 {
		return in.Nodes*(in.ParamsPerNode()+1+in.M) + in.DirectFeatures*in.M
	}
	return deep.ParamCountOf(in.Layers, in.ParamsPerNode(), in.M)
}

// IsClassifier reports whether the model predicts classes.
func (in Info) IsClassifier() bool { return in.Classes != nil }

// ReadInfo reads the preamble and the header of a model file from r and
// stops there: it checks what the header claims (kind, shapes, sizes,
// preprocessing) but neither reads the weights nor verifies the checksum,
// which only Read can do.
func ReadInfo(r io.Reader) (Info, error) {
	var raw bytes.Buffer
	m, rec, hlen, err := readHeader(r, &raw)
	if err != nil {
		return Info{}, err
	}
	return Info{
		Kind: m.Kind, Activation: m.Activation, Rows: m.Rows, Cols: m.Cols, Channels: m.Channels, M: m.M,
		Nodes: m.Summary.Nodes, Classes: m.Classes, Layers: rec.LayerSizes(),
		Config: m.Config, Summary: m.Summary, Preprocessing: m.Preprocessing, Meta: m.Meta,
		Selection: m.Selection, Budget: m.Budget, HeaderBytes: hlen,
		Local: m.Local.CloneGeometry(), LocalFilters: m.Local.Filters(), SecondFilters: rec.SecondFilters(),
		Calibration: m.Calibration, Interval: m.Interval, ClassWeights: m.ClassWeights,
		DirectPool: directPool(m), DirectFeatures: m.DirectDim(),
		FileBytes: rec.FileBytes(hlen),
	}, nil
}

// LoadInfo reads the header of the model file at path (ReadInfo) and
// checks that the file has the size the header describes, so that a
// truncated file or one with trailing bytes is refused without reading its
// weights.
func LoadInfo(path string) (Info, error) {
	f, err := modelfile.Open(path, "load info")
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	in, err := ReadInfo(f)
	if err != nil {
		return Info{}, fmt.Errorf("scn: load info %s: %w", path, err)
	}
	if err := modelfile.CheckSize(f, path, "load info", in.FileBytes); err != nil {
		return Info{}, err
	}
	return in, nil
}

// ParamsPerFilter returns the parameters of one filter of side k of a
// local model, the bias excluded: 2k (+ C) for matrix learners, C k^2 for
// vector ones.
func (in Info) ParamsPerFilter(k int) int { return filterMap(in.Kind.Input, k, in.Chans()).Size() }
