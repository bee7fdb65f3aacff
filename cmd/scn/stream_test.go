package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/npy"
)

// shardFiles writes the 300 training images of files() as three IDX
// shards part-0000k-{images,labels}.gz and returns their glob patterns.
func shardFiles(t *testing.T) (dir, images, labels string) {
	t.Helper()
	dir, train, _ := files(t)
	for k := 0; k < 3; k++ {
		idx := make([]int, 100)
		for i := range idx {
			idx[i] = 100*k + i
		}
		s := train.Subset(idx)
		s.Origin = nil
		name := filepath.Join(dir, "part-0000"+string(rune('0'+k)))
		if err := dataset.WriteIDX(name+"-images.gz", name+"-labels.gz", s); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Join(dir, "part-*-images.gz"), filepath.Join(dir, "part-*-labels.gz")
}

// TestTrainStreamedIsInMemory: scn train --stream on three shard files
// (a glob) writes the model file the fit in memory of the same files (read
// whole from the same glob) writes, byte for byte, for the four learners
// with the fast preset's nodes (2DSCN's pair candidates, and its
// candidates one by one with --pairs=false; the supervised learners in
// blocks of 50: three block passes; with OpenBLAS, whose products depend
// on the call's shape, the supervised ones to rounding).
func TestTrainStreamedIsInMemory(t *testing.T) {
	dir, images, labels := shardFiles(t)
	for _, model := range []string{"rvfl", "2drvfl", "2dscn", "2dscn --pairs=false", "scn"} {
		f := strings.Fields(model)
		name := strings.Join(f, "")
		a, b := filepath.Join(dir, name+"-mem.scn"), filepath.Join(dir, name+"-stream.scn")
		args := append([]string{"train", "--model"}, f...)
		args = append(args, "--preset", "fast", "--nodes", "120", "--quiet", "--idx-images", images, "--idx-labels", labels)
		if strings.Contains(model, "scn") {
			args = append(args, "--block", "50")
		}
		ok(t, append(args, "-o", a)...)
		out := ok(t, append(args, "--stream", "-o", b)...)
		if !strings.Contains(out, "streaming 300 images from 3 files") {
			t.Fatalf("no note of the streamed fit:\n%s", out)
		}
		fa, _ := os.ReadFile(a)
		fb, _ := os.ReadFile(b)
		if strings.Contains(model, "scn") && linalg.Backend() == "openblas" {
			// OpenBLAS's products depend on the call's shape: a streamed
			// supervised fit agrees with the fit in memory to rounding.
			sameNodes(t, model, a, b, 1e-4)
			continue
		}
		if len(fa) == 0 || !bytes.Equal(fa, fb) {
			t.Fatalf("%s: the streamed model file differs from the one fitted in memory", model)
		}
	}
}

// sameNodes fails unless the model files a and b hold the same nodes and
// output weights equal to within tol relative (to the largest).
func sameNodes(t *testing.T, name, a, b string, tol float64) {
	t.Helper()
	ma, err := scn.Load(a)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := scn.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ma.Params, mb.Params) || !slices.Equal(ma.Bias, mb.Bias) || len(ma.Beta) != len(mb.Beta) {
		t.Fatalf("%s: the streamed model's nodes differ", name)
	}
	scale := 0.0
	for _, v := range ma.Beta {
		scale = max(scale, math.Abs(v))
	}
	for i, v := range ma.Beta {
		if math.Abs(mb.Beta[i]-v) > tol*scale {
			t.Fatalf("%s: output weight %d is %v streamed, %v in memory", name, i, mb.Beta[i], v)
		}
	}
}

// TestTrainStreamedSelection: scn train --stream with --validation
// selects L and the ridge term on the same held-out images as the fit in
// memory, with the same scores (the same "selected" line), the same nodes
// and output weights equal to rounding, for 2dscn and rvfl (without
// direct links, which a streamed fit cannot have: in memory the default
// selection would also score them).  (With
// OpenBLAS the scores agree to rounding: the line could differ in a last
// printed digit.)
func TestTrainStreamedSelection(t *testing.T) {
	dir, images, labels := shardFiles(t)
	for _, model := range []string{"2dscn", "rvfl"} {
		a, b := filepath.Join(dir, model+"-sel-mem.scn"), filepath.Join(dir, model+"-sel-stream.scn")
		args := []string{"train", "--model", model, "--nodes", "120", "--block", "40", "--validation", "0.2", "--direct-link=false", "--quiet", "--idx-images", images, "--idx-labels", labels}
		outA := ok(t, append(args, "-o", a)...)
		outB := ok(t, append(args, "--stream", "-o", b)...)
		if !strings.Contains(outB, "and two for the selection on a 0.2 hold-out") {
			t.Fatalf("%s: the note does not count the selection's passes:\n%s", model, outB)
		}
		line := func(out string) string {
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "selected L = ") {
					return l
				}
			}
			t.Fatalf("%s: no selection line:\n%s", model, out)
			return ""
		}
		if la, lb := line(outA), line(outB); la != lb {
			t.Fatalf("%s: the streamed choice differs:\n%s\n%s", model, lb, la)
		}
		tol := 1e-9
		if linalg.Backend() == "openblas" {
			tol = 1e-4 // OpenBLAS's products depend on the call's shape
		}
		sameNodes(t, model, a, b, tol)
	}
}

// TestTrainStreamedDryRun: --dry-run with a streamed fit prints the plan
// (images, the shards, the streamed memory estimate) and writes nothing.
func TestTrainStreamedDryRun(t *testing.T) {
	dir, images, labels := shardFiles(t)
	out := filepath.Join(dir, "dry.scn")
	got := ok(t, "train", "--model", "rvfl", "--preset", "fast", "--nodes", "120", "--stream", "--dry-run",
		"--idx-images", images, "--idx-labels", labels, "-o", out)
	for _, want := range []string{"learner     RVFL, 120 nodes at most", "300 images of 28 x 28 x 1", "streamed from 3 files", "(streamed: two passes over the data)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the plan lacks %q:\n%s", want, got)
		}
	}
	got = ok(t, "train", "--model", "scn", "--preset", "fast", "--nodes", "120", "--block", "50", "--stream", "--dry-run",
		"--idx-images", images, "--idx-labels", labels, "-o", out)
	if want := "(streamed: 5 passes over the data (one per block of 50 nodes, and two more))"; !strings.Contains(got, want) {
		t.Errorf("the plan lacks %q:\n%s", want, got)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a dry run wrote a model")
	}
}

// TestTrainStreamedBadInput: a shard of another image size in the middle
// of the stream stops the fit naming its file and writes no model (a
// random and a supervised learner); a supervised fit with bfloat16 Gram
// products, k-fold selection and --stream on other sources are refused
// with the reason.
func TestTrainStreamedBadInput(t *testing.T) {
	dir, images, labels := shardFiles(t)
	_, train, _ := files(t)
	idx := []int{0, 1, 2, 3}
	small := train.Subset(idx)
	small.Origin = nil
	small.Rows, small.Cols = 14, 56 // the same pixels, another shape
	badImages, badLabels := filepath.Join(dir, "part-00001b-images.gz"), filepath.Join(dir, "part-00001b-labels.gz")
	if err := dataset.WriteIDX(badImages, badLabels, small); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.scn")
	out := fails(t, "train", "--model", "rvfl", "--preset", "fast", "--nodes", "60", "--stream", "--idx-images", images, "--idx-labels", labels, "-o", model)
	if !strings.Contains(out, "part-00001b-images.gz") || !strings.Contains(out, "14 x 56") {
		t.Fatalf("the error does not name the shard and its size: %s", out)
	}
	if _, err := os.Stat(model); err == nil {
		t.Fatal("a model was written")
	}
	out = fails(t, "train", "--model", "2dscn", "--preset", "fast", "--nodes", "60", "--stream", "--idx-images", images+","+badImages, "--idx-labels", labels+","+badLabels, "-o", model)
	if !strings.Contains(out, "part-00001b-images.gz") || !strings.Contains(out, "14 x 56") {
		t.Fatalf("2dscn: the error does not name the shard and its size: %s", out)
	}
	if _, err := os.Stat(model); err == nil {
		t.Fatal("a model was written")
	}
	os.Remove(badImages)
	os.Remove(badLabels)
	out = fails(t, "train", "--model", "scn", "--preset", "fast", "--bf16-gram", "--stream", "--idx-images", images, "--idx-labels", labels, "-o", model)
	if !strings.Contains(out, "bfloat16") {
		t.Fatalf("supervised with bfloat16 Gram products: %s", out)
	}
	out = fails(t, "train", "--model", "rvfl", "--preset", "fast", "--stream", "--folds", "3", "--idx-images", images, "--idx-labels", labels, "-o", model)
	if !strings.Contains(out, "k-fold") || !strings.Contains(out, "--validation") {
		t.Fatalf("k-fold selection: %s", out)
	}
	out = fails(t, "train", "--model", "rvfl", "--stream", "-o", model)
	if !strings.Contains(out, "--stream reads labelled images") || !strings.Contains(out, "built-in set") {
		t.Fatalf("built-in set: %s", out)
	}
	out = fails(t, "train", "--model", "rvfl", "--idx-images", filepath.Join(dir, "nothing-*.gz"), "--idx-labels", labels, "-o", model)
	if !strings.Contains(out, "no file matches") {
		t.Fatalf("empty glob: %s", out)
	}
}

// TestDeriveDistorted: scn derive distorted writes the originals and K
// copies as IDX shards with the labels kept, the same files for the same
// seed whatever GOMAXPROCS, and other files for another seed.
func TestDeriveDistorted(t *testing.T) {
	data := fakeData(t)
	a, b, c := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b"), filepath.Join(t.TempDir(), "c")
	out := ok(t, "derive", "distorted", "--data", data, "--copies", "2", "-o", a)
	if !strings.Contains(out, "part-00002") {
		t.Fatalf("derive said:\n%s", out)
	}
	cmd := []string{"derive", "distorted", "--data", data, "--copies", "2", "-o", b}
	runEnv(t, []string{"GOMAXPROCS=1"}, cmd...)
	sameFiles(t, a, b)
	ok(t, "derive", "distorted", "--data", data, "--copies", "2", "--seed", "2", "-o", c)
	x, _ := os.ReadFile(filepath.Join(a, "part-00001-images-idx3-ubyte.gz"))
	y, _ := os.ReadFile(filepath.Join(c, "part-00001-images-idx3-ubyte.gz"))
	if bytes.Equal(x, y) {
		t.Fatal("another seed gave the same distortions")
	}
	orig, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 3; k++ {
		name := filepath.Join(a, "part-0000"+string(rune('0'+k)))
		s, err := dataset.ReadIDX(name+"-images-idx3-ubyte.gz", name+"-labels-idx1-ubyte.gz")
		if err != nil {
			t.Fatal(err)
		}
		if s.Len() != orig.Len() || s.Rows != orig.Rows || s.Cols != orig.Cols {
			t.Fatalf("part %d: %d images of %d x %d", k, s.Len(), s.Rows, s.Cols)
		}
		for i, l := range s.Labels {
			if l != orig.Labels[i] {
				t.Fatalf("part %d image %d: label %d, the original's %d", k, i, l, orig.Labels[i])
			}
		}
		if same := bytes.Equal(f32bytes(s.Pix), f32bytes(orig.Pix)); same != (k == 0) {
			t.Fatalf("part %d: equal to the originals %v", k, same)
		}
	}
	ok(t, "train", "--model", "rvfl", "--preset", "fast", "--nodes", "100", "--quiet", "--stream",
		"--idx-images", filepath.Join(a, "part-*-images-idx3-ubyte.gz"), "--idx-labels", filepath.Join(a, "part-*-labels-idx1-ubyte.gz"), "-o", filepath.Join(t.TempDir(), "m.scn"))
}

// runEnv runs the binary with extra environment variables and fails the
// test unless it succeeds.
func runEnv(t *testing.T, env []string, args ...string) string {
	t.Helper()
	out, code := runWith(t, env, args...)
	if code != 0 {
		t.Fatalf("scn %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// runWith is run with extra environment variables.
func runWith(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), exitCode(t, err)
}

// TestUpdateGrow: scn update --grow adds supervised nodes to a 2DSCN with
// the old images given, and refuses without them, for a random learner,
// and with old images that are not the statistics'.
func TestUpdateGrow(t *testing.T) {
	dir, _, _ := shardFiles(t)
	img := func(k int) string { return filepath.Join(dir, "part-0000"+string(rune('0'+k))+"-images.gz") }
	lab := func(k int) string { return filepath.Join(dir, "part-0000"+string(rune('0'+k))+"-labels.gz") }
	model, st, grown := filepath.Join(dir, "m.scn"), filepath.Join(dir, "m.scnstats"), filepath.Join(dir, "g.scn")
	ok(t, "train", "--model", "2dscn", "--preset", "fast", "--nodes", "30", "--block", "10", "--quiet",
		"--idx-images", img(0)+","+img(1), "--idx-labels", lab(0)+","+lab(1), "-o", model, "--stats-out", st)
	newData := []string{"--idx-images", img(2), "--idx-labels", lab(2)}
	oldData := []string{"--old-idx-images", img(0) + "," + img(1), "--old-idx-labels", lab(0) + "," + lab(1)}
	out := ok(t, append(append([]string{"update", model, "--stats", st, "--grow", "10", "-o", grown}, newData...), oldData...)...)
	if !strings.Contains(out, "grown by") || !strings.Contains(out, "over 300 images") {
		t.Fatalf("update --grow said:\n%s", out)
	}
	out = fails(t, append([]string{"update", model, "--stats", st, "--grow", "10", "-o", grown}, newData...)...)
	if !strings.Contains(out, "--grow needs the old training images") {
		t.Fatalf("without the old images: %s", out)
	}
	wrong := []string{"--old-idx-images", img(2), "--old-idx-labels", lab(2)}
	out = fails(t, append(append([]string{"update", model, "--stats", st, "--grow", "10", "-o", grown}, newData...), wrong...)...)
	if !strings.Contains(out, "statistics (--stats) were summed over 200") {
		t.Fatalf("other old images: %s", out)
	}
}

// streamSources writes the 300 training images of files() as the other
// sources scn train streams and returns, for each, its data flags: a .npy
// pair, a stored and a deflated .npz, a CSV file, a folder of grey PNGs
// and a folder of colour PNGs.
func streamSources(t *testing.T) (dir string, sources map[string][]string) {
	t.Helper()
	dir, train, test := files(t)
	numpyFiles(t, dir, train, test)
	b := make([]uint8, len(train.Pix))
	for i, v := range train.Pix {
		b[i] = uint8(math.Round(float64(v) * 255))
	}
	x := &npy.Array{Shape: []int{train.Len(), 28, 28}, Data: b}
	lab := make([]int64, train.Len())
	var csv strings.Builder
	for i, l := range train.Labels {
		lab[i] = int64(l)
		fmt.Fprintf(&csv, "%d", l)
		for _, v := range b[i*784 : (i+1)*784] {
			fmt.Fprintf(&csv, ",%d", v)
		}
		csv.WriteString("\n")
	}
	y := &npy.Array{Shape: []int{train.Len()}, Data: lab}
	for _, c := range []struct {
		name     string
		compress bool
	}{{"stored.npz", false}, {"deflated.npz", true}} {
		if err := npy.WriteNPZFile(filepath.Join(dir, c.name), c.compress, npy.Named{Name: "x", Array: x}, npy.Named{Name: "y", Array: y}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "train.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	grey := filepath.Join(dir, "grey")
	if err := dataset.WritePNGFolder(grey, train); err != nil {
		t.Fatal(err)
	}
	colour, _ := hueFolder(t, 150)
	return dir, map[string][]string{
		"npy":          {"--npy-images", filepath.Join(dir, "train.npy"), "--npy-labels", filepath.Join(dir, "train-labels.npy")},
		"stored npz":   {"--npz", filepath.Join(dir, "stored.npz")},
		"deflated npz": {"--npz", filepath.Join(dir, "deflated.npz"), "--invert", "auto"},
		"csv":          {"--csv", filepath.Join(dir, "train.csv"), "--resize", "20x24", "--fit", "crop"},
		"grey folder":  {"--folder", grey},
		"colour":       {"--folder", colour},
		"colour grey":  {"--folder", colour, "--grey"},
	}
}

// TestTrainStreamedSourcesAreInMemory: scn train --stream on a NumPy
// array (.npy, stored and deflated .npz), a CSV file and folders (grey,
// colour, colour read as grey), with preprocessing, writes the model file
// the fit in memory of the same data writes, byte for byte.
func TestTrainStreamedSourcesAreInMemory(t *testing.T) {
	dir, sources := streamSources(t)
	for name, data := range sources {
		a, b := filepath.Join(dir, "mem.scn"), filepath.Join(dir, "stream.scn")
		args := append([]string{"train", "--model", "rvfl", "--preset", "fast", "--nodes", "120", "--quiet"}, data...)
		ok(t, append(args, "-o", a)...)
		out := ok(t, append(args, "--stream", "-o", b)...)
		if !strings.Contains(out, "scn: note: streaming") {
			t.Fatalf("%s: no note of the streamed fit:\n%s", name, out)
		}
		fa, _ := os.ReadFile(a)
		fb, _ := os.ReadFile(b)
		if len(fa) == 0 || !bytes.Equal(fa, fb) {
			t.Fatalf("%s: the streamed model file differs from the one fitted in memory", name)
		}
	}
}

// TestTrainStreamedSourcesBadInput: a folder image of another size in the
// middle of the stream, a truncated .npy file and labels that do not
// match stop the streamed fit with the file's name; no model is written.
func TestTrainStreamedSourcesBadInput(t *testing.T) {
	dir, sources := streamSources(t)
	model := filepath.Join(dir, "m.scn")
	train := func(data ...string) string {
		t.Helper()
		out, code := run(t, append([]string{"train", "--model", "rvfl", "--preset", "fast", "--nodes", "60", "--stream", "-o", model}, data...)...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code == 0 || !strings.HasPrefix(lines[len(lines)-1], "scn: ") || strings.Contains(out, "panic") {
			t.Fatalf("want an error on its last line, got (exit %d):\n%s", code, out)
		}
		if _, err := os.Stat(model); err == nil {
			t.Fatalf("a model was written: %s", out)
		}
		return out
	}
	grey := sources["grey folder"][1]
	pngs, _ := filepath.Glob(filepath.Join(grey, "*", "*.png"))
	bad := pngs[len(pngs)/2]
	writePNG(t, bad, make([]float32, 14*56), 14, 56)
	out := train("--folder", grey)
	if !strings.Contains(out, bad) || !strings.Contains(out, "14 x 56") {
		t.Fatalf("folder: the error does not name the file and its size: %s", out)
	}
	npyPath := filepath.Join(dir, "train.npy")
	raw, _ := os.ReadFile(npyPath)
	os.WriteFile(npyPath, raw[:len(raw)-100], 0o644)
	out = train(sources["npy"]...)
	if !strings.Contains(out, npyPath) || !strings.Contains(out, "truncated") {
		t.Fatalf("truncated npy: %s", out)
	}
	os.WriteFile(npyPath, raw, 0o644)
	out = train("--npy-images", npyPath, "--npy-labels", filepath.Join(dir, "train-targets.npy"))
	if !strings.Contains(out, "train-targets.npy") || !strings.Contains(out, "labels") {
		t.Fatalf("labels that do not match: %s", out)
	}
	out = train("--npy-images", npyPath, "--npy-targets", filepath.Join(dir, "train-targets.npy"))
	if !strings.Contains(out, "regression targets are read whole") {
		t.Fatalf("targets: %s", out)
	}
}

// TestTrainStreamsLargeNumPyByItself: without --stream, a NumPy array
// whose images and fit would exceed --max-memory is streamed (with a note
// saying why), and the model is the one --stream gives: a random and a
// supervised learner.
func TestTrainStreamsLargeNumPyByItself(t *testing.T) {
	dir, train, _ := files(t)
	const copies = 80 // 24000 images: more than a streamed fit keeps
	b := make([]uint8, 0, copies*len(train.Pix))
	lab := make([]int64, 0, copies*train.Len())
	for k := 0; k < copies; k++ {
		for i, v := range train.Pix {
			b = append(b, uint8(math.Round(float64(v)*255))^uint8(k*(i%3)))
		}
		for _, l := range train.Labels {
			lab = append(lab, int64(l))
		}
	}
	x, y := filepath.Join(dir, "big.npy"), filepath.Join(dir, "big-labels.npy")
	if err := npy.WriteFile(x, &npy.Array{Shape: []int{len(lab), 28, 28}, Data: b}); err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteFile(y, &npy.Array{Shape: []int{len(lab)}, Data: lab}); err != nil {
		t.Fatal(err)
	}
	for model, limit := range map[string]string{"rvfl": "90MiB", "2dscn": "110MiB"} {
		a, c := filepath.Join(dir, model+"-auto.scn"), filepath.Join(dir, model+"-forced.scn")
		args := []string{"train", "--model", model, "--preset", "fast", "--nodes", "40", "--quiet", "--max-memory", limit, "--npy-images", x, "--npy-labels", y}
		out := ok(t, append(args, "-o", a)...)
		if !strings.Contains(out, "streaming 24000 images from "+x+" (in memory the 24000 images and the fit would take about") {
			t.Fatalf("%s: no note of the streamed fit:\n%s", model, out)
		}
		ok(t, append(args, "--stream", "-o", c)...)
		fa, _ := os.ReadFile(a)
		fc, _ := os.ReadFile(c)
		if len(fa) == 0 || !bytes.Equal(fa, fc) {
			t.Fatalf("%s: the fit streamed by itself differs from the one --stream asks for", model)
		}
	}
}
