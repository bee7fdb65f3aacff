package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scn2d/scn"
)

// mixedFolder writes two classes of grey images of several sizes: class a
// bright on the left half, class b on the right.
func mixedFolder(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := [][2]int{{30, 40}, {45, 60}, {24, 32}, {40, 30}, {36, 48}}
	for i := range 20 {
		for _, class := range []string{"a", "b"} {
			sz := sizes[i%len(sizes)]
			rows, cols := sz[0], sz[1]
			pix := make([]float32, rows*cols)
			for r := range rows {
				for c := range cols {
					left := c < cols/2
					if left == (class == "a") {
						pix[r*cols+c] = 0.6 + 0.4*rng.Float32()
					}
				}
			}
			writePNG(t, filepath.Join(root, class, fmt.Sprintf("%02d.png", i)), pix, rows, cols)
		}
	}
	return root
}

// TestMixedSizeFolder: a folder of images of mixed sizes trains without
// --resize at a size the reader chooses and says, which the model records
// and eval and predict apply; --resize overrides it.
func TestMixedSizeFolder(t *testing.T) {
	root := mixedFolder(t)
	model := filepath.Join(t.TempDir(), "m.scn")
	out := ok(t, "train", "--model", "2drvfl", "--nodes", "20", "--folder", root, "-o", model)
	if !strings.Contains(out, "images of 5 sizes (24 to 45 rows, 30 to 60 columns): resizing them all to 30 x 40") {
		t.Fatalf("train said:\n%s", out)
	}
	m, err := scn.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != 30 || m.Cols != 40 || !strings.Contains(m.Meta["source"], "resized to 30 x 40") {
		t.Fatalf("model of %d x %d, source %q", m.Rows, m.Cols, m.Meta["source"])
	}
	ev := evalJSON(t, model, "--folder", root)
	if acc, _ := ev["accuracy"].(float64); acc < 0.9 {
		t.Errorf("eval on the mixed folder: %v", ev)
	}
	pred := ok(t, "predict", model, filepath.Join(root, "a", "02.png"), filepath.Join(root, "b", "01.png"))
	lines := strings.Split(strings.TrimSpace(pred), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "\ta\t") || !strings.Contains(lines[1], "\tb\t") {
		t.Errorf("predict:\n%s", pred)
	}
	// --resize overrides, and nothing is said.
	out = ok(t, "train", "--model", "2drvfl", "--nodes", "20", "--folder", root, "--resize", "16x16", "-o", model)
	if strings.Contains(out, "resizing them all") {
		t.Errorf("train with --resize said:\n%s", out)
	}
	if m, err := scn.Load(model); err != nil || m.Rows != 16 || m.Cols != 16 {
		t.Errorf("--resize 16x16: %v %v", m, err)
	}
}
