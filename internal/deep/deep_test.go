package deep

import (
	"math"
	"reflect"
	"testing"

	"github.com/scn2d/scn/internal/modelfile"
	"github.com/scn2d/scn/internal/node"
)

func TestCountsAndTruncate(t *testing.T) {
	// First layer 3 nodes, then layers of 2 and 4 nodes.
	layers := []Layer{
		{Params: make([]float32, 2*3), Bias: make([]float32, 2)},
		{Params: make([]float32, 4*2), Bias: make([]float32, 4)},
	}
	if got := Sizes(3, layers); len(got) != 3 || got[0] != 3 || got[1] != 2 || got[2] != 4 {
		t.Fatalf("Sizes = %v", got)
	}
	if got := Counts(layers); len(got) != 2 || got[0] != 2 || got[1] != 4 {
		t.Fatalf("Counts = %v", got)
	}
	if Counts(nil) != nil || Nodes(layers) != 6 {
		t.Fatalf("Counts(nil) = %v, Nodes = %d", Counts(nil), Nodes(layers))
	}
	// m = 5 outputs: 2*(3+1+5) + 4*(2+1+5).
	if got := ParamCount(3, 5, layers); got != 2*9+4*8 {
		t.Fatalf("ParamCount = %d", got)
	}
	if err := Check(3, layers); err != nil {
		t.Fatal(err)
	}
	for l, want := range map[int][]int{3: nil, 4: {1}, 5: {2}, 6: {2, 1}, 9: {2, 4}} {
		got := Truncate(3, layers, l)
		if len(got) != len(want) {
			t.Fatalf("Truncate(%d) has %d layers, want %d", l, len(got), len(want))
		}
		prev := 3
		for k, ly := range got {
			if ly.Nodes() != want[k] || len(ly.Params) != want[k]*prev || cap(ly.Params) != len(ly.Params) {
				t.Fatalf("Truncate(%d) layer %d: %d nodes, %d weights", l, k, ly.Nodes(), len(ly.Params))
			}
			prev = layers[k].Nodes()
		}
	}
}

func TestCheckRefusals(t *testing.T) {
	nan := float32(math.NaN())
	for name, ly := range map[string]Layer{
		"empty":      {},
		"short":      {Params: make([]float32, 5), Bias: make([]float32, 2)},
		"nan weight": {Params: []float32{0, 0, nan, 0, 0, 0}, Bias: make([]float32, 2)},
		"inf bias":   {Params: make([]float32, 6), Bias: []float32{0, float32(math.Inf(1))}},
	} {
		if err := Check(3, []Layer{ly}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestForwardMatchesNaive(t *testing.T) {
	const rows, first = 5, 3
	layers := []Layer{
		{Params: []float32{0.5, -1, 0.25, 1, 2, -0.5}, Bias: []float32{0.1, -0.2}},
		{Params: []float32{1, -1}, Bias: []float32{0.3}},
	}
	h := make([]float32, (first+3)*rows)
	for i := range first * rows {
		h[i] = float32(i%7) / 7
	}
	var xt []float32
	Forward(layers, node.Sigmoid, first, h, rows, &xt)
	act := func(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
	off, prev := 0, first
	for _, l := range layers {
		for j := range l.Nodes() {
			for i := range rows {
				z := float64(l.Bias[j])
				for k := range prev {
					z += float64(l.Params[j*prev+k]) * float64(h[(off+k)*rows+i])
				}
				got := float64(h[(off+prev+j)*rows+i])
				if math.Abs(got-act(z)) > 1e-4 {
					t.Fatalf("node %d image %d: %v, want %v", off+prev+j, i, got, act(z))
				}
			}
		}
		off += prev
		prev = l.Nodes()
	}
}

func TestFileRoundTrip(t *testing.T) {
	const first, m = 3, 2
	layers := []Layer{
		{Params: []float32{1, 2, 3, 4, 5, 6}, Bias: []float32{7, 8}},
		{Params: []float32{9, 10}, Bias: []float32{11}},
	}
	beta := make([]float64, (first+3)*m)
	for i := range beta {
		beta[i] = float64(i) + 0.5
	}
	b := Append(nil, layers, beta, first, m)
	counts := Counts(layers)
	if len(b) != FileBytes(counts, first, m) {
		t.Fatalf("%d bytes, FileBytes says %d", len(b), FileBytes(counts, first, m))
	}
	back := make([]float64, len(beta))
	got := Read(modelfile.NewPayloadReader(b), counts, back, first, m)
	if !reflect.DeepEqual(got, layers) || !reflect.DeepEqual(back[first*m:], beta[first*m:]) {
		t.Fatalf("read back %+v, %v", got, back)
	}
	if Read(modelfile.NewPayloadReader(nil), nil, back, first, m) != nil {
		t.Fatal("no layers read as some")
	}
	// 3 nodes of 10 parameters, m = 2: 3 * 13, then 2 * (3 + 1 + 2), 1 * (2 + 1 + 2).
	if got := ParamCountOf([]int{3, 2, 1}, 10, m); got != 39+12+5 {
		t.Fatalf("ParamCountOf = %d", got)
	}
	if got := ParamCountOf([]int{3}, 10, m) + ParamCount(3, m, layers); got != 39+12+5 {
		t.Fatalf("ParamCount = %d", got)
	}
}

func TestCheckSizes(t *testing.T) {
	if err := CheckSizes(10, []int{5, 5}, 20); err != nil {
		t.Fatal(err)
	}
	for _, sizes := range [][]int{{0}, {21}, {5, 6}, {-1, 3}} {
		if CheckSizes(10, sizes, 20) == nil {
			t.Errorf("CheckSizes(10, %v, 20) = nil", sizes)
		}
	}
}
