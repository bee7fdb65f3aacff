// Command scn-beam computes a statistics file (.scnstats, docs/stats.md)
// on Apache Beam: the same file as scn stats build, summed shard by shard
// on a Beam runner (Prism in process by default). See docs/beam.md.
//
//	scn-beam stats --input 'data/part-*-images.gz' --recipe model.scn -o all.scnstats \
//	    [--tile 512] [--shard-images K] [--solve model2.scn [--ridge a]] \
//	    [--runner prism|universal|flink|spark|dataflow --endpoint HOST:PORT --environment_type LOOPBACK]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/scn2d/scn"
	scnbeam "github.com/scn2d/scn/beam"
)

// inputs is the repeatable --input flag.
type inputs []string

func (i *inputs) String() string     { return strings.Join(*i, ",") }
func (i *inputs) Set(v string) error { *i = append(*i, v); return nil }

// flags are scn-beam's own; Beam's (--runner, --endpoint,
// --environment_type, ...) are on the same flag.CommandLine.
type flags struct {
	in                 inputs
	recipe, out, solve string
	part               string
	tile, shardImages  int
	rows, cols         int
	ridge              float64
	verbose            bool
}

func (f *flags) add(fs *flag.FlagSet) {
	fs.Var(&f.in, "input", "glob of data files (repeatable): IDX image files paired with labels by name, .npy, .npz, .csv, or folders written by scn derive")
	fs.StringVar(&f.recipe, "recipe", "", "model file (or statistics file) whose hidden nodes to sum for")
	fs.StringVar(&f.out, "o", "", "statistics file to write")
	fs.StringVar(&f.out, "out", "", "statistics file to write (same as -o)")
	fs.StringVar(&f.solve, "solve", "", "also write the model the statistics give here")
	fs.Float64Var(&f.ridge, "ridge", -1, "ridge term of --solve (default: the recipe model's)")
	fs.IntVar(&f.tile, "tile", scnbeam.DefaultTile, "side of the tiles of G that the combine is keyed by")
	fs.IntVar(&f.shardImages, "shard-images", 0, "cut each file into shards of this many images (0: one shard per file)")
	fs.IntVar(&f.rows, "rows", 0, "image rows of CSV and NumPy files (0: square)")
	fs.IntVar(&f.cols, "cols", 0, "image columns of CSV and NumPy files (0: square)")
	fs.StringVar(&f.part, "part", "train", "part of folders written by scn derive")
	fs.BoolVar(&f.verbose, "verbose", false, "show the runner's and the SDK's informational logs (default: warnings and errors only)")
}

func (f *flags) check() error {
	switch {
	case len(f.in) == 0:
		return errors.New("--input: give a glob of data files")
	case f.recipe == "":
		return errors.New("--recipe: give the model (or statistics file) whose nodes to sum for")
	case f.out == "":
		return errors.New("-o: give the statistics file to write")
	case f.tile < 1 || f.shardImages < 0 || f.rows < 0 || f.cols < 0:
		return errors.New("--tile must be >= 1; --shard-images, --rows and --cols >= 0")
	case f.ridge < 0 && f.ridge != -1:
		return fmt.Errorf("--ridge %v: want a value >= 0", f.ridge)
	}
	// Refuse an output the final step could not write before any shard
	// is summed.
	for _, out := range []string{f.out, f.solve} {
		if out == "" {
			continue
		}
		if info, err := os.Stat(filepath.Dir(out)); err != nil || !info.IsDir() {
			return fmt.Errorf("%s: its folder does not exist", out)
		}
	}
	return nil
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "scn-beam:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "stats" {
		// A worker started by a runner (--worker ...) is this binary
		// without the subcommand: beam.Init serves it and exits.
		if len(args) > 0 && strings.HasPrefix(args[0], "-") {
			if err := flag.CommandLine.Parse(args); err != nil {
				return err
			}
			beam.Init()
		}
		return errors.New("usage: scn-beam stats --input GLOB --recipe MODEL_OR_STATS -o FILE [--tile T] [--shard-images K] [--solve MODEL [--ridge a]] [Beam flags: --runner, --endpoint, --environment_type]")
	}
	// A fresh flag set each call, holding Beam's flags (their values are
	// Beam's globals) beside scn-beam's own.
	fs := flag.NewFlagSet("scn-beam stats", flag.ContinueOnError)
	flag.CommandLine.VisitAll(func(fl *flag.Flag) { fs.Var(fl.Value, fl.Name, fl.Usage) })
	var f flags
	f.add(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := f.check(); err != nil {
		return err
	}
	beam.Init()
	if !f.verbose {
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	return stats(&f, stdout)
}

func stats(f *flags, stdout io.Writer) error {
	if _, err := scnbeam.LoadRecipe(f.recipe); err != nil {
		return err
	}
	shards, err := scnbeam.Match(f.in, scnbeam.MatchOptions{Rows: f.rows, Cols: f.cols, Part: f.part, ShardImages: f.shardImages})
	if err != nil {
		return err
	}
	start := time.Now()
	o := scnbeam.Options{Recipe: f.recipe, Out: f.out, Tile: f.tile, Solve: f.solve, Ridge: f.ridge}
	res, err := scnbeam.Run(context.Background(), beamx.RunWithMetrics, shards, o)
	if err != nil {
		return err
	}
	took := time.Since(start)
	st, err := scn.LoadStats(f.out)
	if err != nil {
		return fmt.Errorf("the pipeline ran but its output does not read back: %w", err)
	}
	fmt.Fprintf(stdout, "statistics of %d images in %d shards for %d nodes: saved %s (%.1f s)\n", st.N, len(shards), st.Nodes(), f.out, took.Seconds())
	if f.solve != "" {
		fmt.Fprintf(stdout, "solved: saved %s\n", f.solve)
	}
	shardCost(stdout, res)
	return nil
}

// shardCost prints the distribution of the shards' ParDo times, when the
// runner reports metrics.
func shardCost(w io.Writer, res beam.PipelineResult) {
	if res == nil {
		return
	}
	q := res.Metrics().Query(func(r metrics.SingleResult) bool { return r.Namespace() == "scnbeam" && r.Name() == "shard_ms" })
	for _, d := range q.Distributions() {
		v := d.Committed
		if v.Count == 0 {
			v = d.Attempted
		}
		if v.Count > 0 {
			fmt.Fprintf(w, "per shard (read, sum, split): %d shards, mean %.2f s, min %.2f s, max %.2f s, total %.1f s\n",
				v.Count, float64(v.Sum)/float64(v.Count)/1000, float64(v.Min)/1000, float64(v.Max)/1000, float64(v.Sum)/1000)
		}
	}
}
