package serve

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"testing"
)

// TestParseLearnBatch: labels (strings, whole numbers) and targets
// (arrays, plain numbers, float64 range) are read; bad ones refused.
func TestParseLearnBatch(t *testing.T) {
	b, err := parseLearnBatch([]byte(`{"images": [[0, 1], [1, 0]], "labels": ["cat", 7], "prepared": true}`))
	if err != nil || !slices.Equal(b.labels, []string{"cat", "7"}) || len(b.shapes) != 2 || !b.prepared {
		t.Fatalf("labels: %+v, %v", b, err)
	}
	b, err = parseLearnBatch([]byte(`{"targets": [[1e300, -2.5], 3], "images": [[0], [1]]}`))
	if err != nil || len(b.targets) != 2 || b.targets[0][0] != 1e300 || b.targets[1][0] != 3 {
		t.Fatalf("targets: %+v, %v", b, err)
	}
	b, err = parseLearnBatch([]byte(`{"images": [[0]], "targets": [1e999]}`))
	if err != nil || !math.IsInf(b.targets[0][0], 1) {
		t.Fatalf("1e999: %+v, %v (want +Inf, refused later)", b, err)
	}
	for _, s := range []string{
		`{"images": [[0]], "labels": [1.5]}`,
		`{"images": [[0]], "labels": [true]}`,
		`{"images": [[0]], "labels": ["a\"b"]}`,
		`{"images": [[0]], "targets": [NaN]}`,
		`{"images": [[0]], "targets": [[01]]}`,
		`{"images": [[0]], "targets": [[1,]]}`,
		`{"images": [[0]], "targets": [[1.]]}`,
		`{"images": [[0]], "targets": [[]]}`,
		`{"images": [[0]], "labels": ["1"], "labels": ["2"]}`,
		`{"images": [[0]], "weights": [1]}`,
	} {
		if _, err := parseLearnBatch([]byte(s)); err == nil || !errors.Is(err, errJSON) {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// FuzzParseLearnBatch: whatever the input, parseLearnBatch does not
// panic; what it takes, encoding/json reads too, with the same labels
// and targets.
func FuzzParseLearnBatch(f *testing.F) {
	for _, s := range []string{
		`{"images": [[0, 0.5, 1]], "labels": ["3"]}`,
		`{"images": [[[0,1],[1e-1,2E+0]],[3]],"targets":[[1,2],-3e5],"prepared":true}`,
		`{"labels": [1, "x"], "images": []}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := parseLearnBatch(data)
		if err != nil {
			if !errors.Is(err, errJSON) {
				t.Fatalf("error %v does not wrap errJSON", err)
			}
			return
		}
		var v struct {
			Labels  []any             `json:"labels"`
			Targets []json.RawMessage `json:"targets"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			if !slices.ContainsFunc(b.targets, func(t []float64) bool {
				return slices.ContainsFunc(t, func(x float64) bool { return math.IsInf(x, 0) })
			}) {
				t.Fatalf("parsed, but encoding/json says %v", err)
			}
			return
		}
		if len(v.Labels) != len(b.labels) || len(v.Targets) != len(b.targets) {
			t.Fatalf("labels %d/%d, targets %d/%d", len(b.labels), len(v.Labels), len(b.targets), len(v.Targets))
		}
		for i, l := range v.Labels {
			want := ""
			switch x := l.(type) {
			case string:
				want = x
			case float64:
				want = strconv.FormatInt(int64(x), 10)
			}
			if want != b.labels[i] {
				t.Fatalf("label %d: %q, encoding/json %q", i, b.labels[i], want)
			}
		}
		for i, raw := range v.Targets {
			var one float64
			var many []float64
			if json.Unmarshal(raw, &one) == nil {
				many = []float64{one}
			} else if err := json.Unmarshal(raw, &many); err != nil {
				t.Fatalf("target %d: %v", i, err)
			}
			if !slices.Equal(many, b.targets[i]) {
				t.Fatalf("target %d: %v, encoding/json %v", i, b.targets[i], many)
			}
		}
	})
}
