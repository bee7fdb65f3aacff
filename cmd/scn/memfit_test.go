package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/scn2d/scn/npy"
)

// memShape is a synthetic training set for the memory tests: n images of
// rows x cols x chans in five classes (class c brightens band c of the
// rows, so that a fit has something to learn).
type memShape struct{ n, rows, cols, chans int }

func (s memShape) String() string {
	return fmt.Sprintf("%dx%dx%dx%d", s.n, s.rows, s.cols, s.chans)
}

// write saves the set as a .npy pair (N x H x W, or N x H x W x C) and
// returns the data flags that read it.
func (s memShape) write(t *testing.T, dir string) []string {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(s.n), uint64(s.rows*s.cols)))
	d := s.rows * s.cols * s.chans
	pix := make([]uint8, s.n*d)
	labels := make([]int64, s.n)
	for i := range s.n {
		c := i % 5
		labels[i] = int64(c)
		img := pix[i*d : (i+1)*d]
		for j := range img {
			img[j] = uint8(r.IntN(100))
			if row := j / (s.cols * s.chans); row*5/s.rows == c {
				img[j] += 100
			}
		}
	}
	shape := []int{s.n, s.rows, s.cols}
	if s.chans > 1 {
		shape = append(shape, s.chans)
	}
	x, err := npy.New(pix, shape...)
	if err != nil {
		t.Fatal(err)
	}
	y, err := npy.New(labels, s.n)
	if err != nil {
		t.Fatal(err)
	}
	xs, ys := filepath.Join(dir, s.String()+"-x.npy"), filepath.Join(dir, s.String()+"-y.npy")
	if err := npy.WriteFile(xs, x); err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteFile(ys, y); err != nil {
		t.Fatal(err)
	}
	return []string{"--npy-images", xs, "--npy-labels", ys}
}

var (
	planBytes = regexp.MustCompile(`memory +\S+ \S+ in all, (\d+) bytes`)
	grownTo   = regexp.MustCompile(`fits of (?:\d+, )*(\d+) nodes`)
)

// TestFitPeakMemoryWithinEstimate fits the default learners on five image
// shapes (issue 19: 28 x 28, 112 x 92, 243 x 320, 512 x 512 and colour
// 64 x 64 x 3) and measures each fit's peak resident memory with
// /usr/bin/time against the estimate scn train --dry-run prints, which is
// what --max-memory is checked against: the estimate must cover the peak
// (or --max-memory would not be a bound), and the peak must be at least half
// of it (an estimate far too high refuses work that would fit).
func TestFitPeakMemoryWithinEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("fits at five image sizes")
	}
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		t.Skip("no /usr/bin/time to measure the peak resident memory")
	}
	dir := t.TempDir()
	cases := []struct {
		shape memShape
		args  []string
	}{
		{memShape{1000, 28, 28, 1}, []string{"--model", "2dscn", "--nodes", "200"}},
		{memShape{1000, 28, 28, 1}, []string{"--model", "rvfl", "--preset", "fast", "--nodes", "1000"}},
		{memShape{200, 112, 92, 1}, []string{"--model", "2dscn", "--nodes", "100"}},
		{memShape{200, 112, 92, 1}, []string{"--model", "rvfl", "--nodes", "200"}},
		{memShape{30, 243, 320, 1}, []string{"--model", "2dscn", "--nodes", "40"}},
		{memShape{30, 243, 320, 1}, []string{"--model", "2drvfl", "--nodes", "100"}},
		{memShape{12, 512, 512, 1}, []string{"--model", "2dscn", "--nodes", "20", "--validation", "0"}},
		{memShape{12, 512, 512, 1}, []string{"--model", "rvfl", "--nodes", "30", "--validation", "0"}},
		{memShape{500, 64, 64, 3}, []string{"--model", "2dscn", "--nodes", "200"}},
		{memShape{500, 64, 64, 3}, []string{"--model", "rvfl", "--preset", "fast", "--nodes", "1000"}},
	}
	for _, c := range cases {
		t.Run(c.shape.String()+" "+strings.Join(c.args, " "), func(t *testing.T) {
			args := append(append([]string{"train", "-q", "-o", filepath.Join(dir, "m.scn")}, c.args...), c.shape.write(t, dir)...)
			peak, out := peakRSS(t, args...)
			// Selection may grow past --nodes (fits of 200, 400, ...
			// nodes): the bound that holds is the estimate of the largest
			// fit made, which growth checks against the limit before it
			// fits (scn.Selection.Afford).
			if g := grownTo.FindStringSubmatch(out); g != nil {
				args = append(args, "--nodes", g[1], "--grow=false")
			}
			plan := ok(t, append(args, "--dry-run")...)
			m := planBytes.FindStringSubmatch(plan)
			if m == nil {
				t.Fatalf("no estimate in the plan:\n%s", plan)
			}
			est, _ := strconv.ParseInt(m[1], 10, 64)
			t.Logf("%s %v: estimate %.1f MiB, peak RSS %.1f MiB (%.2f of the estimate)", c.shape, c.args, float64(est)/(1<<20), float64(peak)/(1<<20), float64(peak)/float64(est))
			if peak > est {
				t.Errorf("peak resident memory %d bytes exceeds the estimate %d: --max-memory would not bound it", peak, est)
			}
			if 2*peak < est {
				t.Errorf("peak resident memory %d bytes is under half the estimate %d: the estimate refuses work that fits", peak, est)
			}
		})
	}
}

// peakRSS runs the binary under /usr/bin/time and returns its peak
// resident memory in bytes and its output, failing the test if the command
// fails.
func peakRSS(t *testing.T, args ...string) (int64, string) {
	t.Helper()
	rssFile := filepath.Join(t.TempDir(), "rss")
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%M", "-o", rssFile, binary}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scn %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	b, err := os.ReadFile(rssFile)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	kb, err := strconv.ParseInt(f[len(f)-1], 10, 64)
	if err != nil {
		t.Fatalf("/usr/bin/time said %q", b)
	}
	return kb << 10, string(out)
}
