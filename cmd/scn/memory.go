package main

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/internal/memest"
	"github.com/spf13/pflag"
)

// The memory limit: every command estimates the bytes of its large
// allocations (images after preprocessing, decompressed files, a fit's
// candidate batches, Q, H and the solve, prediction) before making them,
// and refuses, naming the bytes and the flag to change, when they exceed
// the limit. The default is half of the memory the process may use: the
// physical memory, or less under a cgroup limit, GOMEMLIMIT or ulimit -v.
// --max-memory sets it.

// memLimit is the value of --max-memory: bytes, with where it comes from.
type memLimit struct {
	bytes int64
	from  string // "--max-memory 2GiB" or how the default was found
}

// defaultMemLimit returns half of the memory the process may use.
func defaultMemLimit() memLimit {
	avail, from := physicalMemory(), "physical memory"
	if avail <= 0 {
		avail, from = 8<<30, "assumed memory (physical memory unknown)"
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && v < avail {
			avail, from = v, "cgroup memory limit"
		}
	}
	if v := addressLimit(); v > 0 && v < avail {
		avail, from = v, "ulimit -v" // the Go runtime maps a few hundred MB of it at start
	}
	lim := memLimit{bytes: avail / 2, from: "half the " + from + " of " + formatBytes(avail)}
	// GOMEMLIMIT is a limit the user chose for the whole heap: take it as is.
	if v := debug.SetMemoryLimit(-1); v > 0 && v < math.MaxInt64 && v < lim.bytes {
		lim = memLimit{bytes: v, from: "GOMEMLIMIT"}
	}
	return lim
}

// memValue is the --max-memory flag.
type memValue struct{ p *memLimit }

func (v *memValue) String() string { return formatBytes(v.p.bytes) }
func (v *memValue) Type() string   { return "bytes" }
func (v *memValue) Set(s string) error {
	n, err := parseBytes(s)
	if err != nil {
		return err
	}
	*v.p = memLimit{bytes: n, from: "--max-memory " + s}
	return nil
}

// addMemoryFlag registers --max-memory on f (persistent on the root).
func addMemoryFlag(f *pflag.FlagSet, p *memLimit) {
	*p = defaultMemLimit()
	f.Var(&memValue{p}, "max-memory", "refuse work whose estimated memory exceeds this: bytes with a unit (KB, MB, GB, TB, KiB, MiB, GiB, TiB) or a percentage of physical memory, e.g. 2GiB or 75%; the default is "+p.from+"")
}

// units of --max-memory.
var byteUnits = []struct {
	suffix string
	mult   float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"b", 1},
}

// maxMemoryLimit bounds --max-memory (1 PiB), so that sums never overflow.
const maxMemoryLimit = 1 << 50

// parseBytes reads "2GiB", "512MB", "1e9", "75%".
func parseBytes(s string) (int64, error) {
	bad := fmt.Errorf("want a size from 1MiB to 1PiB with a unit (KB, MB, GB, TB, KiB, MiB, GiB, TiB) or a percentage of physical memory from 1%% to 100%%, e.g. 2GiB or 75%%")
	t := strings.ToLower(strings.TrimSpace(s))
	if p, ok := strings.CutSuffix(t, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		phys := physicalMemory()
		if err != nil || !(v >= 1 && v <= 100) || phys <= 0 {
			return 0, bad
		}
		return int64(v / 100 * float64(phys)), nil
	}
	mult := 1.0
	for _, u := range byteUnits {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(num), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v*mult >= 1<<20 && v*mult <= maxMemoryLimit) {
		return 0, bad
	}
	return int64(v * mult), nil
}

// formatBytes renders a byte count for people: "1.5 GiB"
// (memest.FormatBytes, the library's one rendering).
func formatBytes(n int64) string { return memest.FormatBytes(n) }

// memCap is the memory limit of one run (--max-memory; not a time budget, which is --budget).
type memCap struct{ memLimit }

// check refuses need bytes for what, when they exceed the limit; hint says
// which flag lowers the need.
func (b memCap) check(need int64, what, hint string) error {
	if b.bytes <= 0 || need <= b.bytes {
		return nil
	}
	return fmt.Errorf("%s needs about %s of memory, more than the limit of %s (%s): %s, or raise --max-memory",
		what, formatBytes(need), formatBytes(b.bytes), b.from, hint)
}

// apply makes the dataset readers honour the limit too.
func (b memCap) apply() { dataset.SetMemoryLimit(b.bytes) }

// setBytes returns the bytes a set's arrays take.
func setBytes(s *dataset.Set) int64 { return s.Shape().Bytes() }

// outputs returns the model outputs a set gives: its classes or target
// dimension.
func outputs(s *dataset.Set) int { return s.Shape().Outputs() }

// checkFit refuses a fit of cfg on a training set of shape train (and
// scoring a test set of testBytes) that exceeds the memory limit, and a random
// learner with far more nodes than training images. The shape is the
// set's once it is read, or what its headers say before (peekShape), so
// that a fit that cannot fit is refused before the images are read.
func (b memCap) checkFit(cfg scn.Config, sel *scn.Selection, train dataset.Shape, testBytes int64) error {
	if n := train.N; cfg.Kind.Choice == scn.Random && cfg.MaxNodes > maxNodesPerImage*n {
		return fmt.Errorf("--nodes %d is more than %d times the %d training images: %s's hidden outputs have rank at most %d, so nodes beyond that only change the minimum-norm or ridge solution, while every node costs time in proportion to N^2; lower --nodes",
			cfg.MaxNodes, maxNodesPerImage, n, cfg.Kind.Title(), n)
	}
	need := fitTotal(cfg, sel, train, testBytes)
	hint := fitHints(cfg, sel, train, testBytes, need)
	what := fmt.Sprintf("fitting %s with --nodes %d on %d images of %s", cfg.Kind.Title(), cfg.MaxNodes, train.N, inputShape(train.Rows, train.Cols, train.Channels))
	if cfg.BlockSize > 1 {
		what += fmt.Sprintf(" (blocks of %d", cfg.BlockSize)
		if cfg.Kind.Choice == scn.Supervised {
			what += fmt.Sprintf(", %d candidates per node", cfg.Candidates)
		}
		what += ")"
	}
	if cfg.Kind.Choice == scn.Random && cfg.MaxNodes > train.N {
		hint += fmt.Sprintf(" (a random learner's hidden outputs H have rank at most N = %d; nodes beyond it only change the minimum-norm solution)", train.N)
	}
	return b.check(need, what, hint)
}

// checkStats refuses --stats-out's pass over the training set of shape
// train for a model of cfg (scn.Config.EstimateStats; with factor, the
// stored factor's too) when it exceeds the limit: it runs after the fit,
// which has freed its own buffers, beside the set, so that it is checked
// apart from the fit, before the fit starts.
func (b memCap) checkStats(cfg scn.Config, train dataset.Shape, factor bool) error {
	if b.bytes <= 0 {
		return nil
	}
	need := statsTotal(cfg, train, factor)
	hint := "lower --nodes"
	if cfg.Local != nil {
		hint = "lower --filters or --pool"
	}
	if factor {
		hint = fmt.Sprintf("--stats-factor=false (about %s: scn update then forms the factor) or %s", formatBytes(statsTotal(cfg, train, false)), hint)
	}
	return b.check(need, "--stats-out's statistics after the fit", hint)
}

// statsTotal is the memory --stats-out's pass takes with the training set
// and the process's overhead (scn.Config.EstimateStats).
func statsTotal(cfg scn.Config, train dataset.Shape, factor bool) int64 {
	need := train.Bytes() + cfg.EstimateStats(train, factor)
	return need + processOverhead(need)
}

// fitTotal is the memory a fit of cfg on a training set of shape train
// takes with its data (the library's estimate, scn.Config.Estimate), a
// test set of testBytes and the process's overhead.
func fitTotal(cfg scn.Config, sel *scn.Selection, train dataset.Shape, testBytes int64) int64 {
	need := cfg.Estimate(train, sel).Total()
	return need + testBytes + processOverhead(need+testBytes)
}

// fitHints says, for a fit of cfg that needs need bytes, what each flag
// that lowers it would make of it, least first: half the image sides
// (--resize), no model selection (--validation 0), half the nodes, the
// smallest block and candidates fitBlock tries (without blocks, two
// candidates per node), candidates scored one by
// one instead of as pairs (pair scoring holds a shard of the images
// transposed, which fewer candidates do not shrink).
func fitHints(cfg scn.Config, sel *scn.Selection, train dataset.Shape, testBytes, need int64) string {
	type option struct {
		flags string
		need  int64
	}
	var opts []option
	if train.Rows >= 2 && train.Cols >= 2 {
		half := train
		half.Rows, half.Cols = (train.Rows+1)/2, (train.Cols+1)/2
		opts = append(opts, option{fmt.Sprintf("--resize %dx%d", half.Rows, half.Cols), fitTotal(cfg, sel, half, testBytes/4)})
	}
	if sel != nil {
		opts = append(opts, option{"--validation 0", fitTotal(cfg, nil, train, testBytes)})
	}
	if c := cfg; c.MaxNodes >= 2 {
		c.MaxNodes /= 2
		opts = append(opts, option{fmt.Sprintf("--nodes %d", c.MaxNodes), fitTotal(c, sel, train, testBytes)})
	}
	if c := smallestFit(cfg, keepFlags{}); c.BlockSize != cfg.BlockSize || c.Candidates != cfg.Candidates {
		flags := fmt.Sprintf("--block %d", c.BlockSize)
		if c.Candidates != cfg.Candidates {
			flags += fmt.Sprintf(" --candidates %d", c.Candidates)
		}
		opts = append(opts, option{flags, fitTotal(c, sel, train, testBytes)})
	}
	if c := cfg; c.BlockSize <= 1 && c.Kind.Choice == scn.Supervised && c.Candidates > minCandidates {
		c.Candidates = minCandidates
		opts = append(opts, option{fmt.Sprintf("--candidates %d", c.Candidates), fitTotal(c, sel, train, testBytes)})
	}
	if c := cfg; c.Pairs {
		c.Pairs = false
		opts = append(opts, option{"--pairs=false", fitTotal(c, sel, train, testBytes)})
	}
	slices.SortStableFunc(opts, func(a, b option) int { return cmp.Compare(a.need, b.need) })
	var parts []string
	for _, o := range opts {
		if o.need >= need {
			continue
		}
		if len(parts) == 0 {
			parts = append(parts, fmt.Sprintf("%s would need about %s", o.flags, formatBytes(o.need)))
		} else {
			parts = append(parts, fmt.Sprintf("%s about %s", o.flags, formatBytes(o.need)))
		}
	}
	if len(parts) == 0 {
		return "lower --nodes"
	}
	return strings.Join(parts, ", ")
}

// processOverhead is what a process holding live bytes of arrays takes
// beyond them: the runtime, the binary and the goroutines' stacks (about
// 20 MiB: scn version peaks at 18 MiB), the collector's slack (setGCSlack:
// 8 MiB, or a tenth of what is live when that is more), the garbage of
// reading and decoding the data and of a fit's blocks, and pages freed but
// not yet returned to the system. The share of live bytes is measured, not
// derived: peak RSS came to about 25 MiB over the peak heap, and the peak
// heap to 1.13 times the estimated live bytes (500 colour images of 64 x
// 64 x 3, default 2DSCN), so a quarter keeps the estimate above the peak;
// TestFitPeakMemoryWithinEstimate measures it at six image sizes. Without
// it the estimate of a small fit was a third below its measured peak (28
// x 28 digits: 66 MiB estimated, 95 MiB peak RSS). The fixed part is 27
// MiB, not the 25 measured: at 12 x 512 x 512 (84.7 MiB estimated) the
// peak varied from run to run by a few percent, and reached 85.7 MiB.
func processOverhead(live int64) int64 {
	return 27<<20 + max(2*gcHeadroom, live/4)
}

// keepFlags are the settings the command line gave, which fitBlock
// leaves as they are.
type keepFlags struct{ block, candidates bool }

// minCandidates is the fewest candidates per node fitBlock lowers a
// supervised block fit to (scn.MinShrinkCandidates).
const minCandidates = scn.MinShrinkCandidates

// fitBlock returns cfg adapted to fit a training set of shape train in
// the memory limit when its estimate exceeds it, with a note saying so:
// the library's policy (scn.Config.ShrinkToFit: a smaller block, then
// fewer candidates per node) against this command's estimate of the whole
// process (fitTotal). Settings in keep are left alone. When nothing fits
// it returns cfg as it is (checkFit then refuses it).
func (b memCap) fitBlock(cfg scn.Config, sel *scn.Selection, train dataset.Shape, keep keepFlags) (scn.Config, string) {
	if b.bytes <= 0 {
		return cfg, ""
	}
	fits := func(c scn.Config) bool { return fitTotal(c, sel, train, 0) <= b.bytes }
	c, ok := cfg.ShrinkToFit(fits, scn.ShrinkKeep{BlockSize: keep.block, Candidates: keep.candidates})
	if !ok || (c.BlockSize == cfg.BlockSize && c.Candidates == cfg.Candidates) {
		return cfg, ""
	}
	return c, adaptNote(cfg, c, b)
}

// smallestFit returns cfg with the smallest block and fewest candidates
// per node fitBlock tries.
func smallestFit(cfg scn.Config, keep keepFlags) scn.Config {
	return cfg.ShrinkSmallest(scn.ShrinkKeep{BlockSize: keep.block, Candidates: keep.candidates})
}

// adaptNote says how fitBlock changed cfg into c to fit in the limit.
func adaptNote(cfg, c scn.Config, b memCap) string {
	var what, flags []string
	if c.BlockSize != cfg.BlockSize {
		what = append(what, fmt.Sprintf("blocks of %d nodes instead of %d", c.BlockSize, cfg.BlockSize))
		flags = append(flags, "--block")
	}
	if c.Candidates != cfg.Candidates {
		what = append(what, fmt.Sprintf("%d candidates per node instead of %d", c.Candidates, cfg.Candidates))
		flags = append(flags, "--candidates")
	}
	verb := "sets it"
	if len(flags) > 1 {
		verb = "set them"
	}
	return fmt.Sprintf("scn: note: %s, to fit in the memory limit of %s (%s); %s %s\n",
		strings.Join(what, ", "), formatBytes(b.bytes), b.from, strings.Join(flags, " and "), verb)
}

// maxNodesPerImage bounds L / N for a random learner: beyond L = N more
// nodes only change the minimum-norm (or ridge) solution, at a cost of
// O(N^2) time per node. The paper's E3 goes to L = 5 N; with a ridge term,
// random nodes up to some 20 N still help on ORL (2DRVFL at L = 4000 on
// 200 faces), so the bound leaves room for that.
const maxNodesPerImage = 64

// nodesNote returns a note (or nothing) for when L_max exceeds the training
// images: a supervised learner goes on past L = N as the authors' code does
// (or stops there with StopAtRank; with a ridge term it keeps growing on the
// regularised residual), and a random one interpolates from there on.
func nodesNote(cfg scn.Config, n int) string {
	if cfg.MaxNodes <= n || cfg.Local != nil {
		return ""
	}
	if cfg.Kind.Choice == scn.Supervised && cfg.StopAtRank {
		return fmt.Sprintf("scn: note: --nodes %d exceeds the %d training images; %s stops at %d nodes at the latest (the least-squares fit interpolates there)\n", cfg.MaxNodes, n, cfg.Kind.Title(), n)
	}
	if cfg.Kind.Choice == scn.Supervised && cfg.Ridge == 0 {
		return fmt.Sprintf("scn: note: --nodes %d exceeds the %d training images; past %d nodes %s goes on as the authors' code does (minimum-norm output weights, each node judged on the residual they leave)\n", cfg.MaxNodes, n, n, cfg.Kind.Title())
	}
	if cfg.Kind.Choice == scn.Supervised {
		return ""
	}
	return fmt.Sprintf("scn: note: --nodes %d exceeds the %d training images; %s's hidden outputs have rank at most %d, the output weights are the minimum-norm solution\n", cfg.MaxNodes, n, cfg.Kind.Title(), n)
}

// checkPredict refuses scoring n images with m when it exceeds the memory limit.
func (b memCap) checkPredict(m *scn.Model, n int, data int64) error {
	need := data + m.PredictBytes(n)
	return b.check(need, fmt.Sprintf("scoring %d images with a model of %d nodes of %s", n, m.Nodes(), inputShape(m.Rows, m.Cols, m.Chans())), "use fewer images")
}

// withMemoryHint adds the flags to change to a dataset error about the
// memory limit.
func withMemoryHint(err error, p dataset.Preprocess) error {
	if !errors.Is(err, dataset.ErrTooLarge) {
		return err
	}
	if p.ResizeRows > 0 {
		return fmt.Errorf("%w: lower --resize, or raise --max-memory", err)
	}
	return fmt.Errorf("%w: use a smaller data set, or raise --max-memory", err)
}

// gcHeadroom is about the most heap a long computation (a fit, a server)
// lets grow beyond what it keeps live before collecting.
const gcHeadroom = 8 << 20

// setGCSlack keeps the garbage collector's slack fixed rather than in
// proportion to what is live. With the default GOGC of 100 the heap may
// grow to twice the live data before a collection: a server of 100 MB of
// models would peak near 200 MB under load, and a fit's short-lived
// buffers add their size again on top of the images and the factor. The
// percentage is set so that the slack is about gcHeadroom over live bytes
// (gcPercent); what is live here is mostly large arrays without pointers,
// which a collection does not scan, so collecting more often costs little
// (MNIST, RVFL fast preset: 19.35 s at GOGC 10 against 19.44 s at 100).
// An explicit GOGC in the environment is left alone.
func setGCSlack(live int64) {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(gcPercent(live))
}

// gcPercent returns the GOGC for live bytes: 100 up to gcHeadroom, then
// 100 x gcHeadroom / live, at least 10.
func gcPercent(live int64) int {
	if live <= gcHeadroom {
		return 100
	}
	return max(10, int(100*gcHeadroom/live))
}
