package modelrec

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/augment"
	"github.com/scn2d/scn/internal/calib"
	"github.com/scn2d/scn/internal/deep"
	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/drive"
	"github.com/scn2d/scn/internal/kind"
	"github.com/scn2d/scn/internal/modelfile"
	"github.com/scn2d/scn/internal/node"
	"github.com/scn2d/scn/internal/statsfile"
)

var errData = errors.New("invalid data")

// checks are scn's checks as the tests' caller would pass them.
var checks = Checks{
	Finite: func(v []float64, what string) error {
		for i, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%w: %s %d is %v", errData, what, i, x)
			}
		}
		return nil
	},
	Calibration: func(c *calib.Calibration, m int) error { return c.Check(m) },
}

// noAugment refuses any augmentation (the tests' headers have none).
func noAugment(a *augment.Spec, rows, cols int) error {
	return fmt.Errorf("unexpected augmentation %v", *a)
}

// perNode returns the parameters per node of a learner (scn's newNodeMap).
func perNode(k kind.Kind, rows, cols, chans int) int {
	if k.Input == kind.Matrix {
		return node.Matrix{Rows: rows, Cols: cols, Ch: max(chans, 1)}.Size()
	}
	return node.Vector{D: max(chans, 1) * rows * cols}.Size()
}

// record returns a model of l first-layer nodes, further layers of the
// given sizes and m outputs with random weights.
func record(k kind.Kind, rows, cols, chans, l, m int, layers ...int) *Model {
	rng := rand.New(rand.NewPCG(1, 2))
	f32 := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	r := &Model{Kind: k, Activation: node.Tanh, ActivationName: "tanh", Rows: rows, Cols: cols, Channels: chans, M: m,
		PerNode: perNode(k, rows, cols, chans), Meta: map[string]string{"source": "test"},
		Summary: drive.Summary{Samples: 10, Stop: drive.ReachedMaxNodes, TrainRMSE: 0.25, Tried: 7}}
	r.Params, r.Bias = f32(l*r.PerNode), f32(l)
	prev, total := l, l
	for _, c := range layers {
		r.Deep = append(r.Deep, deep.Layer{Params: f32(c * prev), Bias: f32(c)})
		prev, total = c, total+c
	}
	r.Beta = make([]float64, total*m)
	for i := range r.Beta {
		r.Beta[i] = rng.NormFloat64()
	}
	r.Summary.Nodes = total
	return r
}

// roundTrip writes r's file and reads it back as scn's Read does.
func roundTrip(t *testing.T, r *Model) (*Model, uint32) {
	t.Helper()
	if err := r.Check(checks); err != nil {
		t.Fatalf("the record to write: %v", err)
	}
	h := r.Header()
	h.Config.DirectLink = r.Direct != nil // the caller's part of the header
	var file bytes.Buffer
	n, err := r.Write(&file, &h)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(file.Len()) {
		t.Fatalf("Write says %d bytes, wrote %d", n, file.Len())
	}
	var raw bytes.Buffer
	hb, v, hlen, err := modelfile.ReadHeader(&file, &raw)
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromHeader(hb, r.Kind, r.Activation, perNode(r.Kind, hb.Rows, hb.Cols, hb.Channels), noAugment)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Extensions(hb, v, checks); err != nil {
		t.Fatal(err)
	}
	payload, err := modelfile.ReadPayload(&file, &raw, hlen, back.PayloadSize())
	if err != nil {
		t.Fatal(err)
	}
	back.Decode(payload)
	if err := back.Check(checks); err != nil {
		t.Fatal(err)
	}
	return back, v
}

// TestRoundTrip: grey, colour, deep and direct-link records read back with
// every field, in the version their extensions decide.
func TestRoundTrip(t *testing.T) {
	colour := record(kind.SCN2D, 4, 5, 3, 3, 2)
	withDirect := record(kind.RVFL, 4, 4, 0, 2, 3)
	withDirect.Direct = &direct.Link{Pool: 2, Beta: make([]float64, direct.Dim(0, 4, 4, 2)*3)}
	for i := range withDirect.Direct.Beta {
		withDirect.Direct.Beta[i] = float64(i) / 7
	}
	classes := record(kind.SCN, 3, 3, 0, 2, 2)
	classes.Classes, classes.ClassWeights = []string{"a", "b"}, []float64{1, 2.5}
	for _, c := range []struct {
		name string
		r    *Model
		v    uint32
	}{
		{"grey", record(kind.SCN2D, 4, 5, 0, 3, 2), modelfile.GreyVersion},
		{"colour", colour, modelfile.ColourVersion},
		{"deep", record(kind.RVFL2D, 3, 4, 0, 4, 2, 3, 2), modelfile.GreyVersion},
		{"direct", withDirect, modelfile.Version},
		{"class weights", classes, modelfile.Version},
	} {
		back, v := roundTrip(t, c.r)
		if v != c.v {
			t.Errorf("%s: version %d, want %d", c.name, v, c.v)
		}
		want := *c.r
		want.Params, want.Bias = nonNil32(want.Params), nonNil32(want.Bias)
		if !reflect.DeepEqual(back, &want) {
			t.Errorf("%s: read back\n%+v\nwant\n%+v", c.name, back, &want)
		}
	}
}

func nonNil32(v []float32) []float32 {
	if v == nil {
		return []float32{}
	}
	return v
}

// TestExtended: every version 3 field makes a header extended, none else.
func TestExtended(t *testing.T) {
	base := func() *modelfile.Header { return &modelfile.Header{Channels: 3} }
	if Extended(base()) || Version(base()) != modelfile.ColourVersion {
		t.Fatal("a colour header without extensions")
	}
	if h := (&modelfile.Header{}); Version(h) != modelfile.GreyVersion {
		t.Fatal("a grey header without extensions")
	}
	for name, set := range map[string]func(h *modelfile.Header){
		"local":         func(h *modelfile.Header) { h.Local = &modelfile.Local{} },
		"calibration":   func(h *modelfile.Header) { h.Calibration = &modelfile.Calibration{} },
		"interval":      func(h *modelfile.Header) { h.Interval = &modelfile.Interval{} },
		"class weights": func(h *modelfile.Header) { h.ClassWeights = []float64{} },
		"direct":        func(h *modelfile.Header) { h.Direct = &modelfile.Direct{} },
		"probe":         func(h *modelfile.Header) { h.Budget = &modelfile.Budget{Probe: "local"} },
		"choice direct": func(h *modelfile.Header) { h.Selection = &modelfile.Choice{Direct: true} },
		"growth":        func(h *modelfile.Header) { h.Selection = &modelfile.Choice{Growth: "memory"} },
		"curve row": func(h *modelfile.Header) {
			h.Selection = &modelfile.Choice{Curve: [][]float64{{1, 0, 0, 0}, {2, 0, 0, 0, 1}}}
		},
	} {
		h := base()
		set(h)
		if !Extended(h) || Version(h) != modelfile.Version {
			t.Errorf("%s: not version 3", name)
		}
	}
	h := base()
	h.Budget, h.Selection = &modelfile.Budget{}, &modelfile.Choice{Curve: [][]float64{{1, 0, 0, 0}}}
	if Extended(h) {
		t.Error("a budget without probe and a plain selection record made the header extended")
	}
}

// TestVersionAgainstFields: a version 3 file without extensions, and an
// extension in a file of an earlier version, are refused.
func TestVersionAgainstFields(t *testing.T) {
	r := record(kind.SCN2D, 3, 3, 0, 2, 1)
	h := r.Header()
	if err := r.Extensions(&h, modelfile.Version, checks); !errors.Is(err, modelfile.ErrFormat) || !strings.Contains(err.Error(), "without any extension") {
		t.Errorf("version 3 without extensions: %v", err)
	}
	h.Selection = &modelfile.Choice{Growth: "memory"}
	if err := r.Extensions(&h, modelfile.GreyVersion, checks); !errors.Is(err, modelfile.ErrFormat) || !strings.Contains(err.Error(), "with an extension of version 3") {
		t.Errorf("version 1 with a growth record: %v", err)
	}
	h = r.Header()
	h.ClassWeights = []float64{1}
	if err := r.Extensions(&h, modelfile.GreyVersion, checks); !errors.Is(err, modelfile.ErrFormat) {
		t.Errorf("version 1 with class weights: %v", err)
	}
	if err := r.Extensions(&h, modelfile.Version, checks); err == nil || !strings.Contains(err.Error(), "regression model with class weights") {
		t.Errorf("class weights of a regression model: %v", err)
	}
}

// TestFromHeaderRefuses: sizes the header cannot hold are refused before
// anything is allocated.
func TestFromHeaderRefuses(t *testing.T) {
	r := record(kind.SCN, 3, 3, 0, 2, 1)
	for name, set := range map[string]func(h *modelfile.Header){
		"no rows":   func(h *modelfile.Header) { h.Rows = 0 },
		"huge":      func(h *modelfile.Header) { h.Nodes = modelfile.MaxValues / 4 },
		"bad layer": func(h *modelfile.Header) { h.Deep = []int{0} },
		"classes":   func(h *modelfile.Header) { h.Classes = []string{"a", "b"} },
	} {
		h := r.Header()
		set(&h)
		if _, err := FromHeader(&h, r.Kind, r.Activation, r.PerNode, noAugment); !errors.Is(err, modelfile.ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
}

// TestCheck: each disagreement between a model's slices and its shapes,
// and each non-finite value, is named.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		want string
		set  func(r *Model)
	}{
		{"unknown kind", func(r *Model) { r.Kind = kind.Kind{Input: 9} }},
		{"model shapes", func(r *Model) { r.M = 0 }},
		{"channels", func(r *Model) { r.Channels = modelfile.MaxChannels + 1 }},
		{"parameters and", func(r *Model) { r.Params = r.Params[1:] }},
		{"output weights for", func(r *Model) { r.Beta = r.Beta[1:] }},
		{"no nodes", func(r *Model) { r.Params, r.Bias, r.Beta = nil, nil, nil }},
		{"non-finite hidden parameter", func(r *Model) { r.Params[2] = float32(math.Inf(1)) }},
		{"non-finite bias", func(r *Model) { r.Bias[0] = float32(math.NaN()) }},
		{"output weight 1 is NaN", func(r *Model) { r.Beta[1] = math.NaN() }},
		{"regression model with a calibration map", func(r *Model) { r.Calibration = &calib.Calibration{Method: "temperature", Temperature: 1, M: 1} }},
		{"classifier with conformal intervals", func(r *Model) { r.Classes = []string{"a"}; r.Interval = &calib.Interval{} }},
	} {
		r := record(kind.SCN2D, 3, 4, 0, 2, 1)
		c.set(r)
		err := r.Check(checks)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.want, err)
		}
	}
	r := record(kind.SCN2D, 3, 4, 0, 2, 1)
	r.Beta[0] = math.Inf(-1)
	if err := r.Check(checks); !errors.Is(err, errData) {
		t.Errorf("the finite check's error is not returned as it is: %v", err)
	}
}

// TestSameRecipe: the first field in which two recipes differ is named,
// and equal recipes agree.
func TestSameRecipe(t *testing.T) {
	if err := SameRecipe(record(kind.SCN2D, 3, 4, 0, 2, 1), record(kind.SCN2D, 3, 4, 0, 2, 3)); err != nil {
		t.Fatalf("the same nodes with other outputs: %v", err)
	}
	for _, c := range []struct {
		want string
		set  func(r *Model)
	}{
		{"kind 2dscn and scn", func(r *Model) { r.Kind = kind.SCN }},
		{"activation tanh and relu", func(r *Model) { r.Activation, r.ActivationName = node.ReLU, "relu" }},
		{"image size", func(r *Model) { r.Rows = 4 }},
		{"channels 1 and 3", func(r *Model) { r.Channels = 3 }},
		{"2 and 1 hidden nodes", func(r *Model) { r.Bias = r.Bias[:1] }},
		{"direct links pooled by 0 and 2", func(r *Model) { r.Direct = &direct.Link{Pool: 2} }},
		{"parameters differ", func(r *Model) { r.Params = append([]float32{}, r.Params...); r.Params[0]++ }},
		{"biases differ", func(r *Model) { r.Bias = []float32{r.Bias[0], r.Bias[1] + 1} }},
		{"preprocessing", func(r *Model) { r.Preprocessing.Deskew = true }},
		{"class weights", func(r *Model) { r.Classes, r.ClassWeights = []string{"a"}, []float64{2} }},
	} {
		b := record(kind.SCN2D, 3, 4, 0, 2, 1)
		c.set(b)
		err := SameRecipe(record(kind.SCN2D, 3, 4, 0, 2, 1), b)
		if !errors.Is(err, statsfile.ErrStats) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.want, err)
		}
	}
}
