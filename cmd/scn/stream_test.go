package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scn2d/scn/dataset"
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
// whole from the same glob) writes, byte for byte, for both random
// learners with the fast preset's nodes.
func TestTrainStreamedIsInMemory(t *testing.T) {
	dir, images, labels := shardFiles(t)
	for _, model := range []string{"rvfl", "2drvfl"} {
		a, b := filepath.Join(dir, model+"-mem.scn"), filepath.Join(dir, model+"-stream.scn")
		args := []string{"train", "--model", model, "--preset", "fast", "--nodes", "120", "--quiet", "--idx-images", images, "--idx-labels", labels}
		ok(t, append(args, "-o", a)...)
		out := ok(t, append(args, "--stream", "-o", b)...)
		if !strings.Contains(out, "streaming 300 images from 3 files") {
			t.Fatalf("no note of the streamed fit:\n%s", out)
		}
		fa, _ := os.ReadFile(a)
		fb, _ := os.ReadFile(b)
		if len(fa) == 0 || !bytes.Equal(fa, fb) {
			t.Fatalf("%s: the streamed model file differs from the one fitted in memory", model)
		}
	}
}

// TestTrainStreamedBadInput: a shard of another image size in the middle
// of the stream stops the fit naming its file and writes no model; the
// supervised learners, model selection and --stream on other sources are
// refused with the reason.
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
	os.Remove(badImages)
	os.Remove(badLabels)
	out = fails(t, "train", "--model", "scn", "--preset", "fast", "--stream", "--idx-images", images, "--idx-labels", labels, "-o", model)
	if !strings.Contains(out, "one pass over the images per block") {
		t.Fatalf("supervised: %s", out)
	}
	out = fails(t, "train", "--model", "rvfl", "--preset", "fast", "--stream", "--validation", "0.2", "--idx-images", images, "--idx-labels", labels, "-o", model)
	if !strings.Contains(out, "model selection") {
		t.Fatalf("selection: %s", out)
	}
	out = fails(t, "train", "--model", "rvfl", "--stream", "--csv", filepath.Join(dir, "x.csv"), "-o", model)
	if !strings.Contains(out, "--stream reads IDX files") {
		t.Fatalf("csv: %s", out)
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
