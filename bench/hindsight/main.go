// Command hindsight gives the best fixed (L, ridge) of a learner on a
// derived train/test split by hindsight: one fit on all the training
// images up to --nodes, then every prefix of a grid (every --every nodes)
// times every ridge of scn.DefaultRidges, each scored on the TEST images.
// It is the yardstick of the README's "no collapse" comparison (what model
// selection, which never sees the test images, should come close to):
//
//	go run ./bench/hindsight --derived orl-split --model 2dscn --preset default
//
// Prints one line: the best test accuracy and the (L, ridge) that gave it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hindsight:", err)
		os.Exit(1)
	}
}

func run() error {
	dir := flag.String("derived", "orl-split", "a derived set (scn derive faces ...) with train and test parts")
	model := flag.String("model", "2dscn", "learner")
	preset := flag.String("preset", "default", "default, paper or fast")
	nodes := flag.Int("nodes", 1000, "L_max of the one fit")
	every := flag.Int("every", 50, "prefix grid step")
	flag.Parse()
	if *nodes < 1 || *nodes > 1<<20 || *every < 1 {
		return fmt.Errorf("--nodes %d, --every %d: want 1 <= nodes <= %d and every >= 1", *nodes, *every, 1<<20)
	}
	d, err := dataset.ReadDerived(*dir)
	if err != nil {
		return err
	}
	train, test := d.Part("train"), d.Part("test")
	if train == nil || test == nil {
		return fmt.Errorf("%s: want train and test parts", *dir)
	}
	p, err := train.Problem()
	if err != nil {
		return err
	}
	k, err := scn.ParseKind(*model)
	if err != nil {
		return err
	}
	c, err := scn.PresetConfig(*preset, k)
	if err != nil {
		return err
	}
	c.MaxNodes = *nodes
	path, err := c.FitPath(context.Background(), p, nil)
	if err != nil {
		return err
	}
	xt := test.Images()
	bestAcc, bestL, bestRidge := -1.0, 0, 0.0
	for l := *every; l <= path.Nodes(); l += *every {
		for _, ridge := range scn.DefaultRidges() {
			m, err := path.Solve(l, ridge)
			if err != nil {
				continue // singular without a ridge
			}
			acc, err := m.Accuracy(xt, test.Labels)
			if err != nil {
				return err
			}
			if acc > bestAcc {
				bestAcc, bestL, bestRidge = acc, l, ridge
			}
		}
	}
	fmt.Printf("%s %s best test accuracy %.2f%% at L = %d, ridge %g (fit of %d nodes)\n", k, *preset, 100*bestAcc, bestL, bestRidge, path.Nodes())
	return nil
}
