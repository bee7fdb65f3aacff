package scnbeam

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/scn2d/scn"
)

func init() {
	beam.RegisterCoder(reflect.TypeOf(Part{}), EncodePart, DecodePart)
	beam.RegisterCoder(reflect.TypeOf(Fold{}), EncodeFold, DecodeFold)
	beam.RegisterType(reflect.TypeOf(Shard{}))
	register.DoFn3x1[context.Context, Shard, func(string, Part), error](&statsFn{})
	register.Emitter2[string, Part]()
	register.Combiner3[Fold, Part, Part](&foldFn{})
	register.DoFn2x2[string, Part, int, Part](&keyOneFn{})
	register.DoFn2x1[int, func(*Part) bool, error](&writeFn{})
	register.Iter1[Part]()
}

// Options say what the pipeline computes and where it writes.
type Options struct {
	// Recipe is the model file (or statistics file) whose nodes to sum for:
	// a path every worker can read.
	Recipe string
	// Out is the statistics file to write (atomically).
	Out string
	// Tile is the side of the tiles of G the combine is keyed by (default
	// DefaultTile).
	Tile int
	// Solve, if not empty, is the model file the final step also writes:
	// the recipe's nodes with the output weights the sums give.
	Solve string
	// Ridge of the solve; negative means the recipe model's.
	Ridge float64
}

// DefaultTile is the tile side of G when Options.Tile is 0: a tile is
// 512 x 512 float64 (2 MiB), so for L = 5000 the combine has 55 keys of G.
const DefaultTile = 512

// Build adds the statistics pipeline over shards to s: Create (the shard
// list) -> Reshuffle (a fusion break, so that a runner can spread the
// shards over its workers) -> ParDo (each shard's sums by scn.Model.StatsFrom,
// cut into tile parts) -> CombinePerKey (the left fold in shard order) ->
// one group -> the final write (and solve).
func Build(s beam.Scope, shards []Shard, o Options) error {
	if len(shards) == 0 {
		return errors.New("scnbeam: no shard")
	}
	if o.Tile == 0 {
		o.Tile = DefaultTile
	}
	if o.Tile < 1 || o.Recipe == "" || o.Out == "" {
		return fmt.Errorf("scnbeam: options %+v: want a recipe, an output and a tile side >= 1", o)
	}
	for i, sh := range shards {
		if sh.Index != i {
			return fmt.Errorf("scnbeam: shard %d (%s) has index %d: shards are numbered 0, 1, ... in order", i, sh.Name(), sh.Index)
		}
	}
	recipe, err := LoadRecipe(o.Recipe)
	if err != nil {
		return err
	}
	if recipe.Local != nil && recipe.Config.Augment != nil {
		// An augmented recipe sums copies of each image drawn for its
		// place in the whole input (scn.Model.StatsFrom): the shards'
		// places, so that the result does not depend on where they break.
		shards = slices.Clone(shards)
		if err := Places(shards); err != nil {
			return err
		}
	}
	s = s.Scope("scn-stats")
	col := beam.CreateList(s, shards)
	col = beam.Reshuffle(s, col)
	parts := beam.ParDo(s, &statsFn{Recipe: o.Recipe, Tile: o.Tile}, col)
	sums := beam.CombinePerKey(s, &foldFn{}, parts)
	one := beam.GroupByKey(s, beam.ParDo(s, &keyOneFn{}, sums))
	beam.ParDo0(s, &writeFn{Recipe: o.Recipe, Tile: o.Tile, Out: o.Out, Solve: o.Solve, Ridge: o.Ridge, Shards: len(shards)}, one)
	return nil
}

// Run builds the pipeline and runs it with run: beamx.RunWithMetrics
// (the runner the flag --runner names, Prism in process by default) or a
// runner's Execute.
func Run(ctx context.Context, run func(context.Context, *beam.Pipeline) (beam.PipelineResult, error), shards []Shard, o Options) (beam.PipelineResult, error) {
	p, s := beam.NewPipelineWithRoot()
	if err := Build(s, shards, o); err != nil {
		return nil, err
	}
	return run(ctx, p)
}

// ShardMillis is the distribution metric of the time one shard's ParDo
// takes (read, sum, split), in milliseconds: the per-shard cost that
// scales the pipeline to more workers.
var ShardMillis = beam.NewDistribution("scnbeam", "shard_ms")

// LoadRecipe reads the hidden nodes to sum for: a model file, or the
// recipe of a statistics file.
func LoadRecipe(path string) (*scn.Model, error) {
	m, err := scn.Load(path)
	if err == nil {
		return m, nil
	}
	st, serr := scn.LoadStats(path)
	if serr == nil {
		return st.Recipe, nil
	}
	if errors.Is(serr, scn.ErrStats) && !strings.Contains(serr.Error(), "not a statistics file") {
		return nil, serr
	}
	return nil, err
}

// statsFn sums one shard with the library's own function and emits its
// parts keyed by tile.
type statsFn struct {
	Recipe string
	Tile   int
	recipe *scn.Model
}

func (f *statsFn) Setup() error {
	m, err := LoadRecipe(f.Recipe)
	f.recipe = m
	return err
}

func (f *statsFn) ProcessElement(ctx context.Context, sh Shard, emit func(string, Part)) error {
	start := time.Now()
	set, err := Read(sh, f.recipe)
	if err != nil {
		return err
	}
	prob, err := set.Problem()
	if err != nil {
		return fmt.Errorf("scnbeam: %s: %w", sh.Name(), err)
	}
	st, err := f.recipe.StatsFrom(prob, sh.First)
	if err != nil {
		return fmt.Errorf("scnbeam: %s: %w", sh.Name(), err)
	}
	parts, err := Split(st, sh.Index, f.Tile)
	if err != nil {
		return err
	}
	ShardMillis.Update(ctx, time.Since(start).Milliseconds())
	for _, p := range parts {
		emit(p.Key, p)
	}
	return nil
}

// keyOneFn gathers every key's sum under one key for the final write.
type keyOneFn struct{}

func (keyOneFn) ProcessElement(key string, p Part) (int, Part) {
	p.Key = key
	return 0, p
}

// writeFn assembles the statistics from every key's sum, saves them
// atomically and, if asked, solves them.
type writeFn struct {
	Recipe, Out, Solve string
	Tile, Shards       int
	Ridge              float64
}

func (f *writeFn) ProcessElement(_ int, iter func(*Part) bool) error {
	recipe, err := LoadRecipe(f.Recipe)
	if err != nil {
		return err
	}
	parts := map[string]Part{}
	var p Part
	for iter(&p) {
		if _, dup := parts[p.Key]; dup {
			return fmt.Errorf("%w: key %s twice", ErrParts, p.Key)
		}
		parts[p.Key] = p
		p = Part{}
	}
	st, err := Assemble(recipe, parts, f.Tile)
	if err != nil {
		return err
	}
	if err := st.Save(f.Out); err != nil {
		return err
	}
	if f.Solve == "" {
		return nil
	}
	ridge := f.Ridge
	if ridge < 0 {
		ridge = recipe.Config.Ridge
	}
	m, err := st.Solve(ridge)
	if err != nil {
		return err
	}
	return m.Save(f.Solve)
}
