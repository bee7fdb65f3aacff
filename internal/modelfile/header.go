package modelfile

import "fmt"

// Header is the JSON header of a model file.
type Header struct {
	Kind       string `json:"kind"`
	Activation string `json:"activation"`
	Rows       int    `json:"rows"`
	Cols       int    `json:"cols"`
	// Channels is the input's planes C, present (>= 2) in version 2 files
	// only: grey models' headers are unchanged.
	Channels int      `json:"channels,omitempty"`
	Outputs  int      `json:"outputs"`
	Nodes    int      `json:"nodes"`
	Classes  []string `json:"classes,omitempty"`
	Config   Config   `json:"config"`
	Summary  Summary  `json:"summary"`
	// Preprocessing is omitted when zero, so that files of models without
	// preprocessing are the bytes they were before the field existed.
	Preprocessing Preprocessing     `json:"preprocessing,omitzero"`
	Meta          map[string]string `json:"meta,omitempty"`
	Selection     *Choice           `json:"selection,omitempty"`
	Budget        *Budget           `json:"budget,omitempty"`
	// Deep holds the node counts of a deep model's further layers (Nodes
	// is the first layer's), absent for one-layer networks.
	Deep []int `json:"deep,omitempty"`
	// Local is the geometry of a model of local nodes.
	Local *Local `json:"local,omitempty"`
	// Version 3 extensions: the calibration map, the conformal interval,
	// the class weights.
	Calibration  *Calibration `json:"calibration,omitempty"`
	Interval     *Interval    `json:"interval,omitempty"`
	ClassWeights []float64    `json:"class_weights,omitempty"`
	// Direct describes the direct links (version 3), absent without them.
	Direct *Direct `json:"direct,omitempty"`
}

// Config is the fit's configuration in a model file's header.
type Config struct {
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

// Summary is the training summary in a model file's header.
type Summary struct {
	Samples   int     `json:"samples"`
	Stop      string  `json:"stop"`
	TrainRMSE float64 `json:"train_rmse"`
	Tried     int     `json:"tried"`
	Rejected  int     `json:"rejected"`
}

// Preprocessing is the preprocessing record in a model file's header: the
// fields of scn.PreprocessRecord, which converts to and from it.
type Preprocessing struct {
	Invert     string `json:"invert,omitempty"`
	ResizeRows int    `json:"resize_rows,omitempty"`
	ResizeCols int    `json:"resize_cols,omitempty"`
	Fit        string `json:"fit,omitempty"`
	Channels   int    `json:"channels,omitempty"`
	MNIST      bool   `json:"mnist,omitempty"`
	Deskew     bool   `json:"deskew,omitempty"`
}

// Choice is a model's selection record (scn.Choice) in its file header.
type Choice struct {
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

// Budget is a model's time-budget record (scn.BudgetRecord) in its file
// header (times in seconds).
type Budget struct {
	Budget      float64     `json:"budget_s"`
	Kind        string      `json:"kind"`
	Preset      string      `json:"preset"`
	Nodes       int         `json:"planned_nodes"`
	MaxNodes    int         `json:"max_nodes"`
	BlockSize   int         `json:"block_size"`
	Validation  float64     `json:"validation"`
	Points      int         `json:"points"`
	Ridges      []float64   `json:"ridges"`
	FitRidge    float64     `json:"fit_ridge"`
	Predicted   float64     `json:"predicted_s"`
	Rates       [5]float64  `json:"rates"` // score, gram, chol, block, finish (seconds per unit)
	Why         string      `json:"why"`
	FitNodes    int         `json:"fit_nodes"`
	Stopped     string      `json:"stopped"`
	Elapsed     float64     `json:"elapsed_s"`
	Checkpoints [][]float64 `json:"checkpoints"` // rows of [nodes, elapsed_s, accuracy, rmse]
	FitWeights  bool        `json:"fit_weights,omitempty"`
	Filters     int         `json:"filters,omitempty"`
	Probe       string      `json:"probe,omitempty"`
}

// Local is a local model's geometry in its file header (version 3).
type Local struct {
	Sizes       []int  `json:"sizes"`
	Filters     int    `json:"filters"`
	Stride      int    `json:"stride"`
	Pad         int    `json:"pad"`
	Pool        int    `json:"pool"`
	Pooling     string `json:"pooling"`
	TwoSided    bool   `json:"two_sided,omitempty"`
	Standardize bool   `json:"standardize,omitempty"`
	Banks       []int  `json:"banks"` // filters held per bank
	// Whiten and WhitenEps are Local.Whiten and Local.WhitenEps, absent
	// without whitening.
	Whiten    bool    `json:"whiten,omitempty"`
	WhitenEps float64 `json:"whiten_eps,omitempty"`
	// Augment is the augmentation of the fit, absent without.
	Augment *Augment `json:"augment,omitempty"`
	// Second is the second layer, absent without.
	Second *Second `json:"second,omitempty"`
}

// Second is a model's second layer of local nodes in its file header (the
// field "second" of "local").
type Second struct {
	Filters    int    `json:"filters"`
	Size       int    `json:"size"`
	Window     int    `json:"window"`
	Stride     int    `json:"stride"`
	MidPooling string `json:"mid_pooling"`
	Concat     bool   `json:"concat,omitempty"`
	Held       int    `json:"held"` // filters the second layer holds
}

// Augment is an augmentation in a local model's file header (the field
// "augment" of "local").
type Augment struct {
	Flip   bool `json:"flip,omitempty"`
	Shift  int  `json:"shift,omitempty"`
	Copies int  `json:"copies,omitempty"`
}

// Direct is a model's direct links in its file header (version 3).
type Direct struct {
	Pool     int `json:"pool"`
	Features int `json:"features"` // D, checked against the shapes and the pool
}

// Calibration is a model's calibration map in its file header (version 3).
type Calibration struct {
	Method      string    `json:"method"`
	Temperature float64   `json:"temperature"`
	A           []float64 `json:"a,omitempty"`
	B           []float64 `json:"b,omitempty"`
	Held        int       `json:"held_out"`
	TempLoss    float64   `json:"temperature_log_loss"`
	LogiLoss    float64   `json:"logistic_log_loss"`
	RawLoss     float64   `json:"raw_log_loss"`
}

// Interval is a model's conformal interval in its file header (version 3).
type Interval struct {
	Coverage float64   `json:"coverage"`
	Radius   []float64 `json:"radius"`
	Held     int       `json:"held_out"`
}

// UsesV3 reports whether the header has fields of version 3 other than
// the local nodes and the calibration fields (which the reader of the
// model checks): direct links, a budget's probe, a selection's direct
// links, growth record or direct-link curve rows.
func (h *Header) UsesV3() bool {
	if h.Direct != nil || h.Config.DirectLink || (h.Budget != nil && h.Budget.Probe != "") {
		return true
	}
	return h.Selection.UsesV3()
}

// UsesV3 reports whether a selection record has fields of version 3:
// direct links, a growth record or direct-link curve rows (five values).
// A nil record has none.
func (c *Choice) UsesV3() bool {
	if c == nil {
		return false
	}
	if c.Direct || c.Growth != "" {
		return true
	}
	for _, r := range c.Curve {
		if len(r) == 5 {
			return true
		}
	}
	return false
}

// CheckSizes checks the header's shapes (rows, columns, outputs and nodes
// at least 1 and at most MaxValues; zero nodes only with direct links and
// no further layer), its class names against its outputs and the size of
// one input.
func (h *Header) CheckSizes() error {
	for _, v := range []struct {
		name string
		n    int
	}{{"rows", h.Rows}, {"cols", h.Cols}, {"outputs", h.Outputs}, {"nodes", h.Nodes}} {
		if v.n < 1 && !(v.name == "nodes" && v.n == 0 && h.Direct != nil && len(h.Deep) == 0) || v.n > MaxValues {
			return fmt.Errorf("%w: %s = %d", ErrFormat, v.name, v.n)
		}
	}
	if h.Classes != nil && len(h.Classes) != h.Outputs {
		return fmt.Errorf("%w: %d class names for %d outputs", ErrFormat, len(h.Classes), h.Outputs)
	}
	if float64(max(h.Channels, 1))*float64(h.Rows)*float64(h.Cols) > MaxValues {
		return fmt.Errorf("%w: header claims inputs of %d x %d x %d, too large", ErrFormat, h.Rows, h.Cols, max(h.Channels, 1))
	}
	return nil
}

// CheckLayers checks the further layers the header claims and returns
// their nodes in all.
func (h *Header) CheckLayers() (int, error) {
	total, values, prev := 0, 0.0, float64(h.Nodes)
	for k, c := range h.Deep {
		if c < 1 || c > MaxValues {
			return 0, fmt.Errorf("%w: layer %d of %d nodes", ErrFormat, k+2, c)
		}
		values += float64(c) * (prev + 1 + 2*float64(h.Outputs))
		if values > MaxValues {
			return 0, fmt.Errorf("%w: header claims further layers too large", ErrFormat)
		}
		total += c
		prev = float64(c)
	}
	return total, nil
}
