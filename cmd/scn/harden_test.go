package main

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	idxbin "encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/npy"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// tinyFiles writes a tiny data set (24 images of 6 x 6 in three classes,
// an IDX pair and a PNG class folder), a PNG image and a model trained on
// it, for tests that run the command many times.
type tinyFiles struct {
	dir, images, labels, folder, png, model string
	set                                     *dataset.Set
}

func tiny(t testing.TB) tinyFiles {
	t.Helper()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	const n, rows, cols = 24, 6, 6
	s := &dataset.Set{Rows: rows, Cols: cols, Classes: []string{"0", "1", "2"}}
	for i := 0; i < n; i++ {
		c := i % 3
		for j := 0; j < rows*cols; j++ {
			v := 0.1 * r.Float32()
			if j%3 == c {
				v += 0.8
			}
			s.Pix = append(s.Pix, v)
		}
		s.Labels = append(s.Labels, c)
	}
	dataset.Quantize(s)
	f := tinyFiles{dir: dir, images: filepath.Join(dir, "tiny-images.gz"), labels: filepath.Join(dir, "tiny-labels.gz"),
		folder: filepath.Join(dir, "folder"), png: filepath.Join(dir, "one.png"), model: filepath.Join(dir, "tiny.scn"), set: s}
	if err := dataset.WriteIDX(f.images, f.labels, s); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		pngFile(t, filepath.Join(f.folder, s.Classes[s.Labels[i]], fmt.Sprintf("%02d.png", i)), s.Image(i), rows, cols)
	}
	pngFile(t, f.png, s.Image(0), rows, cols)
	out, code := runArgs(t, "train", "--idx-images", f.images, "--idx-labels", f.labels, "--nodes", "24", "-q", "-o", f.model)
	if code != 0 {
		t.Fatalf("train: %s", out)
	}
	return f
}

// pngFile writes a grey PNG file, making its folder.
func pngFile(t testing.TB, path string, pix []float32, rows, cols int) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, cols, rows))
	for i, v := range pix {
		img.Pix[i] = uint8(v*255 + 0.5)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runArgs runs the binary with args and returns its output and status.
func runArgs(t testing.TB, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), 0
}

// leaves returns the runnable commands of the tree with their path, e.g.
// "derive rotated".
func leaves(c *cobra.Command) map[string]*cobra.Command {
	out := map[string]*cobra.Command{}
	var walk func(c *cobra.Command, path string)
	walk = func(c *cobra.Command, path string) {
		if len(c.Commands()) == 0 {
			out[strings.TrimSpace(path)] = c
		}
		for _, sub := range c.Commands() {
			if sub.Name() != "help" && sub.Name() != "completion" {
				walk(sub, path+" "+sub.Name())
			}
		}
	}
	walk(c, "")
	return out
}

// allFlags returns the flags of a leaf command, its own and inherited.
func allFlags(c *cobra.Command) []*pflag.Flag {
	var fl []*pflag.Flag
	seen := map[string]bool{}
	add := func(f *pflag.Flag) {
		if !seen[f.Name] {
			seen[f.Name] = true
			fl = append(fl, f)
		}
	}
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	sort.Slice(fl, func(i, j int) bool { return fl[i].Name < fl[j].Name })
	return fl
}

// checkedValue reports whether a flag is one of the checked numeric types.
func checkedValue(f *pflag.Flag) bool {
	switch f.Value.(type) {
	case *intValue, *floatValue, *uint64Value, *memValue, *durationValue, *int64Value:
		return true
	}
	return false
}

// listFlags are the string flags that hold numbers.
var listFlags = map[string]bool{"scales": true, "ratios": true, "ppa": true}

// TestEveryNumericFlagIsChecked fails on any numeric flag of any command
// that is not one of the checked types (a plain IntVar would take -1).
func TestEveryNumericFlagIsChecked(t *testing.T) {
	for path, c := range leaves(newRoot()) {
		for _, f := range allFlags(c) {
			switch f.Value.Type() {
			case "bool", "string", "stringSlice", "stringArray":
				continue
			}
			if !checkedValue(f) {
				t.Errorf("scn %s --%s: numeric flag of type %s (%T) is not range-checked: use intVar, floatVar, uint64Var", path, f.Name, f.Value.Type(), f.Value)
			}
		}
	}
}

// TestNumericFlagValues runs every command with every numeric flag set to
// negative, zero, huge, NaN and infinite values: never a panic, a one-line
// error, and a usage error (status 2) for values outside every range.
func TestNumericFlagValues(t *testing.T) {
	f := tiny(t)
	data := fakeData(t)
	out := t.TempDir()
	stats := filepath.Join(out, "s.scnstats")
	ok(t, "stats", "build", "--recipe", f.model, "--idx-images", f.images, "--idx-labels", f.labels, "-o", stats)
	base := map[string][]string{
		"stats build":      {"--recipe", f.model, "--idx-images", f.images, "--idx-labels", f.labels, "-o", filepath.Join(out, "s2.scnstats")},
		"stats merge":      {stats, stats, "-o", filepath.Join(out, "s3.scnstats")},
		"solve":            {stats, "-o", filepath.Join(out, "solved.scn")},
		"update":           {f.model, "--stats", stats, "--idx-images", f.images, "--idx-labels", f.labels, "-o", filepath.Join(out, "u.scn")},
		"train":            {"--idx-images", f.images, "--idx-labels", f.labels, "--nodes", "3", "-q", "-o", filepath.Join(out, "m.scn")},
		"eval":             {f.model, "--idx-images", f.images, "--idx-labels", f.labels},
		"predict":          {f.model, f.png},
		"compare":          {"--idx-images", f.images, "--idx-labels", f.labels, "--test-folder", f.folder, "--nodes", "3", "--trials", "1", "-q"},
		"experiment":       {"faces", "--data", filepath.Join(out, "missing"), "--out", filepath.Join(out, "res"), "-q"},
		"derive rotated":   {"--data", data, "--train", "20", "--test", "20", "-o", filepath.Join(out, "rot")},
		"derive faces":     {"--data", data, "-o", filepath.Join(out, "faces")},
		"derive occluded":  {"--data", data, "-o", filepath.Join(out, "occ"), "--block", "5"},
		"derive distorted": {"--data", data, "--copies", "1", "-o", filepath.Join(out, "dist")},
		"derive hue":       {"-o", filepath.Join(out, "hue")},
		"bench":            {"--idx-images", f.images, "--idx-labels", f.labels, "--nodes", "3", "--ref-nodes", "0"},
		"inspect":          {f.model},
		"version":          {},
		"export":           {f.model, "-o", filepath.Join(out, "m.npz")},
		"serve":            {f.model, "--addr", "256.0.0.1:1"}, // cannot listen: the flags are checked first
	}
	values := []string{"0", "1e-300", "-1", "-Inf", "NaN", "Inf", "1e308", "99999999999999999999", "x"}
	runs := 0
	for path, c := range leaves(newRoot()) {
		args, known := base[path]
		if !known {
			t.Errorf("scn %s: no base arguments in this test", path)
			continue
		}
		for _, fl := range allFlags(c) {
			if !checkedValue(fl) && !listFlags[fl.Name] {
				continue
			}
			for _, v := range values {
				cmdline := append(strings.Fields(path), args...)
				if fl.Name != "max-memory" {
					cmdline = append(cmdline, "--max-memory", "256MiB")
				}
				cmdline = append(cmdline, "--"+fl.Name, v)
				out, code := runArgs(t, cmdline...)
				runs++
				name := strings.Join(append(strings.Fields(path), "--"+fl.Name, v), " ")
				if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
					t.Errorf("scn %s: %s", name, out)
					continue
				}
				last := out
				if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) > 0 {
					last = lines[len(lines)-1] // compare prints its table's header first
				}
				if code != 0 && !strings.HasPrefix(last, "scn: ") {
					t.Errorf("scn %s: exit %d, want an error line:\n%s", name, code, out)
				}
				reject := rejects(fl, v)
				if !reject && (v == "-1" || v == "NaN" || v == "Inf" || v == "-Inf" || v == "x") {
					t.Errorf("scn %s: the flag takes %s", name, v)
				}
				if reject && (code != exitUsage || strings.Count(strings.TrimSpace(out), "\n") > 0) {
					t.Errorf("scn %s: exit %d, want %d (one-line usage error):\n%s", name, code, exitUsage, out)
				}
				if code == exitUsage && !strings.Contains(out, "--"+fl.Name) {
					t.Errorf("scn %s: the usage error does not name the flag: %s", name, out)
				}
			}
		}
	}
	t.Logf("%d runs", runs)
}

// rejects reports whether the flag refuses the value, asking a copy of
// its checked type (or the list's range).
func rejects(fl *pflag.Flag, v string) bool {
	switch x := fl.Value.(type) {
	case *intValue:
		c, n := *x, 0
		c.p = &n
		return c.Set(v) != nil
	case *floatValue:
		c, f := *x, 0.0
		c.p = &f
		return c.Set(v) != nil
	case *uint64Value:
		var n uint64
		return (&uint64Value{&n}).Set(v) != nil
	case *memValue:
		var m memLimit
		return (&memValue{&m}).Set(v) != nil
	case *durationValue:
		c, d := *x, time.Duration(0)
		c.p = &d
		return c.Set(v) != nil
	case *int64Value:
		c, n := *x, int64(0)
		c.p = &n
		return c.Set(v) != nil
	}
	r := map[string]listRange{"scales": scalesRange, "ratios": ratiosRange, "ppa": ppaRange}[fl.Name]
	_, err := r.parseList(v)
	return err != nil
}

// gzipMembers returns a gzip stream of head followed by n MiB of zeros,
// as n+1 concatenated gzip members (compressed once, repeated), so that a
// test can build a file that expands a thousand times cheaply.
func gzipMembers(t *testing.T, head []byte, mib int) []byte {
	t.Helper()
	member := func(b []byte) []byte {
		var buf bytes.Buffer
		w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	out := member(head)
	zeros := member(make([]byte, 1<<20))
	for i := 0; i < mib; i++ {
		out = append(out, zeros...)
	}
	return out
}

// idxHead encodes an IDX ubyte header.
func idxHead(dims ...int) []byte {
	b := []byte{0, 0, 0x08, byte(len(dims))}
	for _, d := range dims {
		b = idxbin.BigEndian.AppendUint32(b, uint32(d))
	}
	return b
}

// limited runs the binary with GOMEMLIMIT=150MiB, which the default
// memory limit follows, under a hard limit of the address space (ulimit -v
// 2000000: the Go runtime maps about 800 MB at start, so that a command
// that did not refuse would fail with an out-of-memory crash instead of
// taking gigabytes), and returns its output, exit status, peak resident
// memory (measured by /usr/bin/time, -1 without it: the rusage of a child
// of the test process counts the test process's own memory from before
// exec) and CPU time.
func limited(t *testing.T, args ...string) (string, int, int64, time.Duration) {
	t.Helper()
	rssFile := filepath.Join(t.TempDir(), "rss")
	argv := append([]string{"sh", "-c", `ulimit -v 2000000 && exec "$@"`, "sh", binary}, args...)
	timed := false
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		argv = append([]string{"/usr/bin/time", "-f", "%M", "-o", rssFile}, argv...)
		timed = true
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "GOMEMLIMIT=150MiB")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(60 * time.Second): // a hang guard, not a timing assertion
			cmd.Process.Kill()
		}
	}()
	err := cmd.Run()
	close(done)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	rss := int64(-1)
	if timed {
		b, err := os.ReadFile(rssFile)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Fields(string(b)) // "Command exited with non-zero status 1" comes first
		kb, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
		if err != nil {
			t.Fatalf("/usr/bin/time said %q", b)
		}
		rss = kb * 1024
	}
	return out.String(), code, rss, cpu
}

// TestMemoryBombsRefused runs each input that once exhausted memory with
// GOMEMLIMIT=150MiB (which the default limit follows): each must be
// refused with a one-line error naming the flag or the file, having used
// less than 200 MB and 2 s of CPU time.
func TestMemoryBombsRefused(t *testing.T) {
	dir := t.TempDir()
	f := tiny(t)
	p := func(n string) string { return filepath.Join(dir, n) }
	// The bomb: about 1 MB of gzip whose header claims 1000 images of
	// 1000 x 1000, and which expands to 1 GB.
	os.WriteFile(p("bomb.gz"), gzipMembers(t, idxHead(1000, 1000, 1000), 1000), 0o644)
	// A header that claims one image of 1000 x 1000 before 1 GB of data.
	os.WriteFile(p("long.gz"), gzipMembers(t, idxHead(1, 1000, 1000), 1000), 0o644)
	// A header that claims 20 images of 1000 x 1000; 10 MB follow.
	os.WriteFile(p("short.gz"), gzipMembers(t, idxHead(20, 1000, 1000), 10), 0o644)
	// A .npz of about 64 KB whose deflated images expand to 64 MB (320 MB
	// once read and made float32).
	npz := p("bomb.npz")
	{
		a, err := npy.New(make([]uint8, 64<<20), 1024, 256, 256)
		if err != nil {
			t.Fatal(err)
		}
		var raw, z bytes.Buffer
		npy.Write(&raw, a)
		zw := zip.NewWriter(&z)
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: "x.npy", Method: zip.Deflate})
		w.Write(raw.Bytes())
		zw.Close()
		os.WriteFile(npz, z.Bytes(), 0o644)
	}
	labels := p("labels")
	os.WriteFile(labels, idxHead(1000), 0o644) // never reached
	if st, _ := os.Stat(p("bomb.gz")); st.Size() > 2<<20 {
		t.Fatalf("bomb is %d bytes", st.Size())
	}
	m := p("m.scn")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"train", "--idx-images", p("bomb.gz"), "--idx-labels", labels, "-q", "-o", m}, "bomb.gz"},
		{[]string{"train", "--idx-images", p("long.gz"), "--idx-labels", labels, "-q", "-o", m}, "long.gz"},
		{[]string{"train", "--idx-images", p("short.gz"), "--idx-labels", labels, "-q", "-o", m}, "short.gz"},
		{[]string{"train", "--resize", "4096x4096", "-q", "-o", m}, "--resize"},
		{[]string{"train", "--idx-images", f.images, "--idx-labels", f.labels, "--resize", "4096x4096", "-q", "-o", m}, "--resize"},
		{[]string{"train", "--model", "2drvfl", "--nodes", "1048576", "--idx-images", f.images, "--idx-labels", f.labels, "-q", "-o", m}, "--nodes"},
		// The paper preset, one node at a time: refused by the memory
		// estimate (with the default's blocks of 100 the command line is
		// refused before any estimate: TestBadInputExitStatus).
		{[]string{"train", "--preset", "paper", "--candidates", "65536", "--nodes", "1", "-q", "-o", m}, "--candidates"},
		{[]string{"compare", "--preset", "paper", "--candidates", "65536", "--nodes", "1", "--trials", "1", "-q"}, "--candidates"},
		{[]string{"bench", "--n", "1000000"}, "--n"},
		{[]string{"eval", f.model, "--idx-images", p("bomb.gz"), "--idx-labels", labels}, "bomb.gz"},
		{[]string{"train", "--npz", npz, "-q", "-o", m}, "bomb.npz"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out, code, rss, cpu := limited(t, c.args...)
			t.Logf("exit %d, peak RSS %.1f MB, CPU %v: %s", code, float64(rss)/1e6, cpu, strings.TrimSpace(out))
			if code != exitError || !strings.HasPrefix(out, "scn: ") || strings.Contains(out, "panic") {
				t.Errorf("want a one-line error with status 1, got %d:\n%s", code, out)
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("the error does not name %s: %s", c.want, out)
			}
			if rss < 0 {
				t.Log("no /usr/bin/time: peak memory not measured")
			}
			if rss > 200e6 {
				t.Errorf("peak resident memory %.0f MB, want < 200 MB", float64(rss)/1e6)
			}
			if cpu > 2*time.Second {
				t.Errorf("CPU time %v, want < 2 s", cpu)
			}
		})
	}
}

// copyClass copies the PNG class folder src/<class> to dst/<as>.
func copyClass(t *testing.T, src, class, dst, as string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(src, class, "*.png"))
	if len(files) == 0 {
		t.Fatalf("no images in %s/%s", src, class)
	}
	os.MkdirAll(filepath.Join(dst, as), 0o755)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dst, as, filepath.Base(f)), b, 0o644)
	}
}

// TestClassesMatchedByName: eval and compare match a test set's classes to
// the model's (or the training set's) by name: a subset in any order
// scores as predict classifies; unknown classes are an error that lists
// them.
func TestClassesMatchedByName(t *testing.T) {
	f := tiny(t)
	dir := t.TempDir()
	full := ok(t, "eval", f.model, "--folder", f.folder)
	if !strings.Contains(full, "accuracy 100.00%") {
		t.Fatalf("the tiny model does not fit its training images:\n%s", full)
	}
	// Classes 1 and 2 only: read as labels 0 and 1 of the folder, they
	// are classes 1 and 2 of the model.
	sub := filepath.Join(dir, "sub")
	copyClass(t, f.folder, "1", sub, "1")
	copyClass(t, f.folder, "2", sub, "2")
	if out := ok(t, "eval", f.model, "--folder", sub); !strings.Contains(out, "accuracy 100.00%") {
		t.Errorf("subset of classes:\n%s", out)
	}
	out := ok(t, "eval", f.model, "--folder", sub, "--json")
	if !strings.Contains(out, `"1": 1`) || !strings.Contains(out, `"2": 1`) || strings.Contains(out, `"0": `) {
		t.Errorf("per-class accuracy of the subset:\n%s", out)
	}
	// Renamed classes: unknown to the model, an error listing them.
	renamed := filepath.Join(dir, "renamed")
	copyClass(t, f.folder, "0", renamed, "a")
	copyClass(t, f.folder, "1", renamed, "b")
	copyClass(t, f.folder, "2", renamed, "c")
	if out := fails(t, "eval", f.model, "--folder", renamed); !strings.Contains(out, "does not know: a, b, c") {
		t.Errorf("renamed classes: %s", out)
	}
	// A superset: one class the model does not know.
	super := filepath.Join(dir, "super")
	for _, c := range []string{"0", "1", "2"} {
		copyClass(t, f.folder, c, super, c)
	}
	copyClass(t, f.folder, "2", super, "7")
	if out := fails(t, "eval", f.model, "--folder", super); !strings.Contains(out, "does not know: 7 ") {
		t.Errorf("superset: %s", out)
	}
	// compare: a test folder with a subset of the training classes, and one
	// with a class the training set lacks.
	out = ok(t, "compare", "--idx-images", f.images, "--idx-labels", f.labels, "--test-folder", sub, "--nodes", "24", "--trials", "1", "-q", "--models", "2drvfl")
	if !strings.Contains(out, "100.00 ± 0.00  100.00 ± 0.00") {
		t.Errorf("compare on a subset of classes:\n%s", out)
	}
	if out := fails(t, "compare", "--idx-images", f.images, "--idx-labels", f.labels, "--test-folder", renamed, "--nodes", "3", "--trials", "1", "-q"); !strings.Contains(out, "does not know: a, b, c") {
		t.Errorf("compare on renamed classes: %s", out)
	}
	// Training folders with names, tested on the same names in another
	// order of folders (z sorts last in one, first in the other).
	named := filepath.Join(dir, "named")
	copyClass(t, f.folder, "0", named, "x")
	copyClass(t, f.folder, "1", named, "y")
	copyClass(t, f.folder, "2", named, "z")
	other := filepath.Join(dir, "other")
	copyClass(t, f.folder, "2", other, "z")
	copyClass(t, f.folder, "0", other, "x")
	m := filepath.Join(dir, "named.scn")
	ok(t, "train", "--folder", named, "--nodes", "24", "-q", "-o", m)
	if out := ok(t, "eval", m, "--folder", other); !strings.Contains(out, "accuracy 100.00%") {
		t.Errorf("named classes:\n%s", out)
	}
}

// TestStrayLabel: one label 200 among 0-2 would make a 201-class model;
// refused with the reason. A few classes without images get a note.
func TestStrayLabel(t *testing.T) {
	f := tiny(t)
	s := f.set.Clone()
	s.Labels[5] = 200
	s.Classes = make([]string, 201)
	for i := range s.Classes {
		s.Classes[i] = fmt.Sprint(i)
	}
	dir := t.TempDir()
	img, lab := filepath.Join(dir, "img"), filepath.Join(dir, "lab")
	if err := dataset.WriteIDX(img, lab, s); err != nil {
		t.Fatal(err)
	}
	out := fails(t, "train", "--idx-images", img, "--idx-labels", lab, "-q", "--nodes", "3", "-o", filepath.Join(dir, "m.scn"))
	if !strings.Contains(out, "labels run up to 200") {
		t.Errorf("stray label: %s", out)
	}
	s.Labels[5] = 4 // classes 0-4, class 3 empty
	if err := dataset.WriteIDX(img, lab, s); err != nil {
		t.Fatal(err)
	}
	out = ok(t, "train", "--idx-images", img, "--idx-labels", lab, "-q", "--nodes", "3", "--validation", "0", "-o", filepath.Join(dir, "m.scn"))
	if !strings.Contains(out, "note: 1 of the 5 classes have no training image (3)") {
		t.Errorf("empty class: %s", out)
	}
}

// TestOutputs: -o onto a character device writes through it (it stays a
// device); new model files get 0666 less the umask; an existing file keeps
// its mode; bad output paths are refused before any fit.
func TestOutputs(t *testing.T) {
	f := tiny(t)
	dir := t.TempDir()
	train := func(out string, extra ...string) (string, int) {
		return runArgs(t, append([]string{"train", "--idx-images", f.images, "--idx-labels", f.labels, "--nodes", "3", "-q", "-o", out}, extra...)...)
	}
	t.Run("device", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("mknod needs root")
		}
		dev := filepath.Join(dir, "null")
		if err := mknodNull(dev); err != nil {
			t.Skipf("mknod: %v", err)
		}
		if out, code := train(dev); code != 0 {
			t.Fatalf("exit %d: %s", code, out)
		}
		st, err := os.Lstat(dev)
		if err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%s is no longer a character device: %v %v", dev, st.Mode(), err)
		}
	})
	t.Run("umask", func(t *testing.T) {
		for _, c := range []struct {
			umask string
			want  os.FileMode
		}{{"022", 0o644}, {"077", 0o600}, {"027", 0o640}} {
			out := filepath.Join(dir, "u"+c.umask+".scn")
			sh := exec.Command("sh", "-c", "umask "+c.umask+" && exec \"$@\"", "sh", binary, "train", "--idx-images", f.images, "--idx-labels", f.labels, "--nodes", "3", "-q", "-o", out)
			if b, err := sh.CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, b)
			}
			if st, _ := os.Stat(out); st.Mode().Perm() != c.want {
				t.Errorf("umask %s: mode %v, want %v", c.umask, st.Mode().Perm(), c.want)
			}
		}
	})
	t.Run("existing mode", func(t *testing.T) {
		out := filepath.Join(dir, "kept.scn")
		os.WriteFile(out, []byte("old"), 0o644)
		os.Chmod(out, 0o664)
		sh := exec.Command("sh", "-c", "umask 077 && exec \"$@\"", "sh", binary, "train", "--idx-images", f.images, "--idx-labels", f.labels, "--nodes", "3", "-q", "-o", out)
		if b, err := sh.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		if st, _ := os.Stat(out); st.Mode().Perm() != 0o664 || st.Size() < 100 {
			t.Errorf("mode %v, %d bytes: want 0664 kept and the model written", st.Mode().Perm(), st.Size())
		}
		// Through a symbolic link: the link stays, the file it names is replaced.
		link := filepath.Join(dir, "link.scn")
		os.Symlink(out, link)
		if o, code := train(link); code != 0 {
			t.Fatalf("exit %d: %s", code, o)
		}
		if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
			t.Error("the symbolic link was replaced")
		}
	})
	t.Run("bad paths", func(t *testing.T) {
		for _, c := range []struct {
			out, want string
			code      int
		}{
			{"", "-o: empty file name", exitUsage},
			{filepath.Join(dir, "no", "such", "m.scn"), "no such file or directory", exitError},
			{dir, "is a directory", exitError},
			{filepath.Join(f.images, "m.scn"), "not a directory", exitError},
		} {
			// A fit that would take long: the check must come first.
			start := time.Now()
			out, code := runArgs(t, "train", "--nodes", "100000", "--model", "scn", "-q", "-o", c.out)
			if code != c.code || !strings.Contains(out, c.want) {
				t.Errorf("-o %q: exit %d: %s", c.out, code, out)
			}
			t.Logf("-o %q: %v: %s", c.out, time.Since(start), strings.TrimSpace(out))
		}
	})
}

// TestErrorMessages: "scn: " once, file names intact, directories named
// as such, CSV errors with the line and a short excerpt.
func TestErrorMessages(t *testing.T) {
	f := tiny(t)
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	b, _ := os.ReadFile(f.model)
	os.WriteFile(p("trunc4.scn"), b[:len(b)-4], 0o644)
	long := "1;" + strings.Repeat("0;", 40) + "0\n"
	os.WriteFile(p("semi.csv"), []byte(long+long), 0o644)
	os.WriteFile(p("pixel.csv"), []byte("1,"+strings.Repeat("0,", 35)+"0\n2,"+strings.Repeat("0,", 35)+strings.Repeat("x", 100)+"\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"eval", p("nope.scn")}, "nope.scn: no such file or directory"},
		{[]string{"eval", p("trunc4.scn")}, "load " + p("trunc4.scn") + ": bad model file"},
		{[]string{"inspect", dir}, dir + ": is a directory"},
		{[]string{"predict", f.model, dir}, dir + " is a directory"},
		{[]string{"train", "--csv", p("semi.csv"), "-q", "-o", p("m.scn")}, `line 2: label "1;0;0;0;0;0;0;0;0;0;0;0;"... (83 characters) is not an integer (the file is read with commas as separators)`},
		{[]string{"train", "--csv", p("pixel.csv"), "-q", "-o", p("m.scn")}, `line 2: pixel "xxxxxxxxxxxxxxxxxxxxxxxx"... (100 characters) is not a finite number`},
	}
	for _, c := range cases {
		out := fails(t, c.args...)
		if !strings.Contains(out, c.want) || strings.Contains(out, ": scn: ") {
			t.Errorf("scn %s:\n got %s\nwant %s", strings.Join(c.args, " "), out, c.want)
		}
	}
}

// snapshot returns the files of a folder and their bytes.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func sameSnapshot(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestDeriveLeavesExistingSetOnFailure: a failing, cancelled or killed
// derive leaves a set written before byte for byte as it was (or, killed
// after the swap, the whole new set); a folder holding other files is
// refused.
func TestDeriveLeavesExistingSetOnFailure(t *testing.T) {
	data := fakeData(t)
	root := t.TempDir()
	set := filepath.Join(root, "set")
	ok(t, "derive", "rotated", "--data", data, "--train", "50", "--test", "50", "--seed", "1", "-o", set)
	old := snapshot(t, set)
	d, err := dataset.ReadDerived(set)
	if err != nil {
		t.Fatal(err)
	}
	// Failing: the second part is invalid, so Write fails after the first.
	bad := &dataset.Derived{Manifest: d.Manifest, Parts: []dataset.Part{d.Parts[0], {Name: "test", Set: &dataset.Set{Rows: 2, Cols: 2, Pix: []float32{1}}}}}
	var sink bytes.Buffer
	if err := writeDerived(t.Context(), &sink, bad, set); err == nil {
		t.Fatal("a derived set with an invalid part was written")
	}
	if !sameSnapshot(old, snapshot(t, set)) {
		t.Error("a failed derive changed the existing set")
	}
	// Cancelled before the swap.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := writeDerived(ctx, &sink, d, set); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled derive: %v", err)
	}
	if !sameSnapshot(old, snapshot(t, set)) {
		t.Error("a cancelled derive changed the existing set")
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".set.tmp*")); len(left) > 0 {
		t.Errorf("temporary folders left: %v", left)
	}
	// Killed at random moments: the set is the old one or the whole new one.
	fresh := filepath.Join(root, "fresh")
	args := []string{"derive", "rotated", "--data", data, "--train", "3000", "--test", "1000", "--seed", "2"}
	ok(t, append(args, "-o", fresh)...)
	want := snapshot(t, fresh)
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 6; i++ {
		cmd := exec.Command(binary, append(args, "-o", set)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.IntN(400)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		now := snapshot(t, set)
		switch {
		case sameSnapshot(now, old):
		case sameSnapshot(now, want):
			old = want // later runs replace the new set by itself
		default:
			t.Fatalf("after kill %d the set is neither the old nor the new one", i)
		}
	}
	// A folder with other files in it is refused and left alone.
	os.WriteFile(filepath.Join(set, "notes.txt"), []byte("mine"), 0o644)
	before := snapshot(t, set)
	if out := fails(t, append(args, "-o", set)...); !strings.Contains(out, "notes.txt") {
		t.Errorf("derive over a folder with other files: %s", out)
	}
	if !sameSnapshot(before, snapshot(t, set)) {
		t.Error("a refused derive changed the folder")
	}
}
