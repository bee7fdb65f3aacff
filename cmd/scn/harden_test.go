package main

import (
	"bytes"
	"compress/gzip"
	idxbin "encoding/binary"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scn2d/scn/dataset"
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
	case *intValue, *floatValue, *uint64Value, *memValue:
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
	base := map[string][]string{
		"train":           {"--idx-images", f.images, "--idx-labels", f.labels, "--nodes", "3", "-q", "-o", filepath.Join(out, "m.scn")},
		"eval":            {f.model, "--idx-images", f.images, "--idx-labels", f.labels},
		"predict":         {f.model, f.png},
		"compare":         {"--idx-images", f.images, "--idx-labels", f.labels, "--test-folder", f.folder, "--nodes", "3", "--trials", "1", "-q"},
		"experiment":      {"faces", "--data", filepath.Join(out, "missing"), "--out", filepath.Join(out, "res"), "-q"},
		"derive rotated":  {"--data", data, "--train", "20", "--test", "20", "-o", filepath.Join(out, "rot")},
		"derive faces":    {"--data", data, "-o", filepath.Join(out, "faces")},
		"derive occluded": {"--data", data, "-o", filepath.Join(out, "occ"), "--block", "5"},
		"bench":           {"--idx-images", f.images, "--idx-labels", f.labels, "--nodes", "3", "--ref-nodes", "0"},
		"inspect":         {f.model},
		"version":         {},
	}
	outside := []string{"-1", "-Inf", "NaN", "Inf", "1e308", "99999999999999999999", "x"}
	values := append([]string{"0", "1e-300"}, outside...)
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
				if code != 0 && (!strings.HasPrefix(out, "scn: ") || strings.Contains(strings.TrimSpace(out), "\n") && !strings.Contains(out, "scn: note")) {
					t.Errorf("scn %s: exit %d, want a one-line error:\n%s", name, code, out)
				}
				for _, o := range outside {
					if v == o && code != exitUsage {
						t.Errorf("scn %s: exit %d, want %d (usage error):\n%s", name, code, exitUsage, out)
					}
				}
				if code == exitUsage && v != "x" && !strings.Contains(out, "--"+fl.Name) {
					t.Errorf("scn %s: the usage error does not name the flag: %s", name, out)
				}
			}
		}
	}
	t.Logf("%d runs", runs)
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

// limited runs the binary under GOMEMLIMIT and returns its output, exit
// status, peak resident memory and CPU time.
func limited(t *testing.T, args ...string) (string, int, int64, time.Duration) {
	t.Helper()
	cmd := exec.Command(binary, args...)
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
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return out.String(), code, ru.Maxrss * 1024, cpu
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
	// A header that claims 100 images of 1000 x 1000; 20 MB follow.
	os.WriteFile(p("short.gz"), gzipMembers(t, idxHead(100, 1000, 1000), 20), 0o644)
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
		{[]string{"train", "--candidates", "65536", "--nodes", "1", "-q", "-o", m}, "--candidates"},
		{[]string{"compare", "--candidates", "65536", "--nodes", "1", "--trials", "1", "-q"}, "--candidates"},
		{[]string{"bench", "--n", "1000000"}, "--n"},
		{[]string{"eval", f.model, "--idx-images", p("bomb.gz"), "--idx-labels", labels}, "bomb.gz"},
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
			if rss > 200e6 {
				t.Errorf("peak resident memory %.0f MB, want < 200 MB", float64(rss)/1e6)
			}
			if cpu > 2*time.Second {
				t.Errorf("CPU time %v, want < 2 s", cpu)
			}
		})
	}
}
