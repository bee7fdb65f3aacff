package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scn2d/scn"
)

// TestInspectColourModel: inspect and export describe a colour model's
// input as rows x cols x C, and count d1 + d2 + C parameters per 2D node.
func TestInspectColourModel(t *testing.T) {
	const rows, cols, ch, n = 6, 5, 3, 40
	pix := make([]float32, n*ch*rows*cols)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % 2
		for j := 0; j < rows*cols; j++ {
			pix[(i*ch+labels[i])*rows*cols+j] = float32(j%7) / 7
		}
	}
	p, err := scn.Classification(scn.Images{Rows: rows, Cols: cols, Channels: ch, Pix: pix}, labels, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	c := scn.Paper(scn.SCN2D)
	c.MaxNodes = 4
	m, err := c.Fit(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "colour.scn")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	out := ok(t, "inspect", path)
	for _, want := range []string{"2DSCN: 6 x 5 x 3 input, 2 outputs", "(14 per node"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}
	if out := ok(t, "inspect", "--json", path); !strings.Contains(out, `"channels": 3`) {
		t.Errorf("inspect --json lacks the channels:\n%s", out)
	}
	if out := ok(t, "export", path, "-o", filepath.Join(t.TempDir(), "m.onnx")); !strings.Contains(out, "6 x 5 x 3 input") {
		t.Errorf("export said:\n%s", out)
	}
}
