package budget

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/scn2d/scn/internal/kind"
	"github.com/scn2d/scn/internal/modelfile"
)

func testRecord() *Record {
	return &Record{
		Budget: 60 * time.Second,
		Plan: Plan{
			Kind: kind.RVFL, Preset: "fast", Nodes: 2500, MaxNodes: 25000, BlockSize: 250, Validation: 0.05,
			Ridges: []float64{1, 10}, FitRidge: 1, Predicted: 50 * time.Second,
			Rates: Rates{Score: 1e-8, Gram: 2e-10, Chol: 3e-11, Block: 1e-3, Finish: 4e-11},
			Why:   "large", FitWeights: true, Probe: "probed",
		},
		FitNodes: 9000, Stopped: "budget", Elapsed: 59 * time.Second,
		Checkpoints: []Checkpoint{{Nodes: 250, Elapsed: time.Second, Accuracy: 0.9, RMSE: 0.3}, {Nodes: 500, Elapsed: 2 * time.Second, Accuracy: 0.92, RMSE: 0.28}},
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	if Encode(nil) != nil {
		t.Fatal("Encode(nil) != nil")
	}
	if r, err := Decode(nil, 100, 10); r != nil || err != nil {
		t.Fatalf("Decode(nil) = %v, %v", r, err)
	}
	want := testRecord()
	f := Encode(want)
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var back modelfile.Budget
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(&back, 100000, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		edit       func(f *modelfile.Budget)
	}{
		{"kind", "unknown model kind", func(f *modelfile.Budget) { f.Kind = "svm" }},
		{"block", "block 0", func(f *modelfile.Budget) { f.BlockSize = 0 }},
		{"max nodes", "max nodes 0", func(f *modelfile.Budget) { f.MaxNodes = 0 }},
		{"too many", "max nodes 200000", func(f *modelfile.Budget) { f.MaxNodes = 200000 }},
		{"fitted", "fitted -1", func(f *modelfile.Budget) { f.FitNodes = -1 }},
		{"validation", "validation share 1", func(f *modelfile.Budget) { f.Validation = 1 }},
		{"validation nan", "validation share NaN", func(f *modelfile.Budget) { f.Validation = math.NaN() }},
		{"filters", "11 filters", func(f *modelfile.Budget) { f.Filters = 11 }},
		{"ridges", "no ridge terms", func(f *modelfile.Budget) { f.Ridges = nil }},
		{"checkpoint", "checkpoint of 3 values", func(f *modelfile.Budget) { f.Checkpoints[1] = f.Checkpoints[1][:3] }},
	} {
		f := Encode(testRecord())
		tc.edit(f)
		r, err := Decode(f, 100000, 10)
		if err == nil || r != nil || !strings.HasPrefix(err.Error(), "budget") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Decode = %v, %v; want an error saying %q", tc.name, r, err, tc.want)
		}
	}
	// A plan of local nodes may hold out nothing.
	f := Encode(testRecord())
	f.Validation, f.Filters = 0, 4
	if _, err := Decode(f, 100000, 10); err != nil {
		t.Errorf("local plan without a hold-out: %v", err)
	}
}

// FuzzDecode checks that Decode never panics on a header's budget field
// and that what it accepts encodes back to what it read.
func FuzzDecode(f *testing.F) {
	b, _ := json.Marshal(Encode(testRecord()))
	f.Add(b)
	f.Add([]byte(`{"kind":"2dscn","block_size":1,"max_nodes":1,"validation":0.5,"ridges":[0],"checkpoints":[[1,2,3]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var h modelfile.Budget
		if json.Unmarshal(data, &h) != nil {
			return
		}
		r, err := Decode(&h, 100000, 64)
		if err != nil {
			return
		}
		again, err := Decode(Encode(r), 100000, 64)
		if err != nil {
			t.Fatalf("a decoded record does not decode again: %v", err)
		}
		if !reflect.DeepEqual(Encode(again), Encode(r)) {
			t.Fatalf("encode/decode not stable: %+v against %+v", again, r)
		}
	})
}

func TestRatesValid(t *testing.T) {
	good := Rates{Score: 1e-8, Gram: 1e-10, Chol: 1e-11, Block: 1e-3, Finish: 1e-11}
	if !good.Valid() {
		t.Fatal("good rates refused")
	}
	for i, bad := range []Rates{
		{}, {Score: -1, Gram: 1}, {Score: 1, Chol: math.NaN()}, {Score: 1, Finish: math.Inf(1)}, {Gram: 1, Block: -1e-9},
	} {
		if bad.Valid() {
			t.Errorf("%d: %+v accepted", i, bad)
		}
	}
}

func TestMeasured(t *testing.T) {
	r := Measured(2, 0.5, 1000, 100)
	if r.Score != 0.5/(1000*100.0) || r.Gram != 1.5/(1000*100*100/2.0) || r.Block != 1e-3 || !(r.Chol > 0) || !(r.Finish > 0) {
		t.Fatalf("Measured = %+v", r)
	}
	// A path that does not split its time: half of it is scoring.
	if a, b := Measured(2, 0, 1000, 100), Measured(2, 1, 1000, 100); a.Score != b.Score || a.Gram != b.Gram {
		t.Fatalf("unsplit time: %+v against %+v", a, b)
	}
	if a := Measured(2, 3, 1000, 100); a.Score != 1/(1000*100.0) {
		t.Fatalf("score above the fit's time: %+v", a)
	}
}

func TestMemoryCap(t *testing.T) {
	for _, limit := range []int{0, 99, 100, 250, 1234, 5000} {
		got := MemoryCap(100, 10000, func(l int) bool { return l <= limit })
		want := max(100, limit/100*100)
		if got != want {
			t.Errorf("limit %d: MemoryCap = %d, want %d", limit, got, want)
		}
	}
}

func TestSize(t *testing.T) {
	r := Rates{Score: 1e-8, Gram: 1e-10, Chol: 1e-11, Block: 1e-3, Finish: 1e-11}
	base := Plan{Kind: kind.RVFL, BlockSize: 100, Ridges: []float64{0, 1}, FitRidge: 1, Points: 20, Rates: r}
	prev := 0
	for _, left := range []float64{0, 0.5, 2, 10, 60} {
		pl := base
		pl.Size(left, 50000, 2500, 10, 784, 100000, nil)
		if pl.Nodes < 100 || pl.Nodes%100 != 0 || pl.Nodes < prev {
			t.Fatalf("left %v: Nodes = %d (before %d)", left, pl.Nodes, prev)
		}
		if pl.MaxNodes < pl.Nodes || pl.MaxNodes > Growth*pl.Nodes || pl.MaxNodes%100 != 0 {
			t.Fatalf("left %v: MaxNodes = %d for Nodes %d", left, pl.MaxNodes, pl.Nodes)
		}
		cost := r.FitSeconds(50000, pl.Nodes, 100) + pl.FinishSeconds(2500, pl.Nodes, 10, 784)
		if pl.Predicted != time.Duration(cost*float64(time.Second)) {
			t.Fatalf("left %v: Predicted = %v, want %v s", left, pl.Predicted, cost)
		}
		if pl.Nodes > 100 && cost > left {
			t.Fatalf("left %v: plan of %d nodes costs %v s", left, pl.Nodes, cost)
		}
		prev = pl.Nodes
	}
	// The supervised learners stop at N; a memory cap bounds both.
	pl := base
	pl.Kind = kind.SCN2D
	pl.Size(1e9, 300, 100, 10, 784, 100000, nil)
	if pl.Nodes > 300 || pl.MaxNodes > 300 {
		t.Fatalf("supervised on 300 images: %d, %d", pl.Nodes, pl.MaxNodes)
	}
	pl = base
	var extra int64 = -1
	pl.FitWeights, pl.Ridges = true, []float64{1, 10}
	pl.Size(1e9, 50000, 2500, 10, 784, 100000, func(e int64) int { extra = e; return 700 })
	if pl.Nodes != 700 || pl.MaxNodes != 700 || extra != 8 {
		t.Fatalf("memory cap 700: %d, %d, extra %d", pl.Nodes, pl.MaxNodes, extra)
	}
}

func TestRun(t *testing.T) {
	pl := Plan{BlockSize: 100, MaxNodes: 800, Ridges: []float64{1}, Rates: Rates{Score: 1e-8, Gram: 1e-10, Finish: 1e-11}}
	start := time.Unix(100, 0)
	run := pl.Run(1000, 100, 10, 784, start)
	if run.Block != 100 || run.MaxNodes != 800 || run.Safety != Safety || !run.Start.Equal(start) {
		t.Fatalf("Run = %+v", run)
	}
	if run.Fit(300) != pl.Rates.FitSeconds(1000, 300, 100) || run.Finish(300) != pl.FinishSeconds(100, 300, 10, 784) {
		t.Fatal("Run's time model is not the plan's")
	}
}
