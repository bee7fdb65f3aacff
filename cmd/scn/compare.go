package main

import (
	"fmt"
	"io"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/experiment"
	"github.com/spf13/cobra"
)

// Defaults of "scn compare": sized so that the run with no arguments
// finishes in about a minute on two cores with the pure-Go build.
const (
	compareNodes  = 1000
	compareTrials = 5
)

func newCompare() *cobra.Command {
	var (
		h       hyperFlags
		train   dataFlags
		test    = dataFlags{prefix: "test-"}
		trials  int
		quiet   bool
		learner string
	)
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "Compare the four learners on one train/test pair",
		Long: `Fit the four learners (or those named by --models) on one training set, K
trials with seeds seed..seed+K-1, and print the mean and standard deviation of
train and test accuracy (or RMSE and PPA), time to train and model size. With
no data flags it runs on the built-in data set (3000 training and 1000 test
digits from MNIST); --derived DIR (a folder written by scn derive) gives both
its train and its test part.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			kinds, err := parseKinds(learner)
			if err != nil {
				return err
			}
			cfgs := make([]scn.Config, len(kinds))
			for i, k := range kinds {
				if cfgs[i], err = h.config(k); err != nil {
					return err
				}
			}
			sel, err := h.selection()
			if err != nil {
				return err
			}
			p, err := train.preprocess()
			if err != nil {
				return err
			}
			if train.derived != "" && !test.given() {
				test.derived = train.derived // its test part
			}
			if train.given() != test.given() {
				return usageError{fmt.Errorf("give both a training set and a test set (--test-idx-images, --test-folder, --test-csv or --test-derived), or neither")}
			}
			if err := comparePreflight(cfgs, sel, &train, &test, p); err != nil {
				return err
			}
			tr, err := train.load("train", p)
			if err != nil {
				return err
			}
			polarityNote(cmd.ErrOrStderr(), tr, &train)
			sel = h.forSize(sel, tr)
			if p.Channels == 0 {
				p.Channels = tr.Chans() // the test set's planes are the training set's
			}
			te, err := test.load("test", p)
			if err != nil {
				return err
			}
			if err := checkTrainClasses(cmd.ErrOrStderr(), tr); err != nil {
				return err
			}
			if tr.Labels != nil && te.Labels != nil {
				if err := matchClasses(tr.Classes, te, "the test set"); err != nil {
					return err
				}
			}
			for _, cfg := range cfgs {
				if err := currentMemCap().checkFit(cfg, sel, tr.Shape(), setBytes(te)); err != nil {
					return err
				}
			}
			fmt.Fprint(cmd.ErrOrStderr(), nodesNote(cfgs[0], tr.Len()))
			var log io.Writer = io.Discard
			if !quiet {
				log = cmd.ErrOrStderr()
			}
			fmt.Fprintf(cmd.OutOrStdout(), "train: %s (%d images)\ntest:  %s (%d images)\nL_max %d, %d trial(s), seed %d\n\n",
				tr.Source, tr.Len(), te.Source, te.Len(), h.nodes, trials, h.seed)
			res, err := experiment.Compare(cmd.Context(), experiment.CompareOptions{
				Train: tr, Test: te, Kinds: kinds, Trials: trials, Seed: h.seed, Log: log, Select: sel,
				Config: func(k scn.Kind) scn.Config { c, _ := h.config(k); return c },
			})
			if err != nil {
				return err
			}
			return res.WriteTable(cmd.OutOrStdout())
		},
	}
	h.addRun(cmd, compareNodes) // the learners are --models
	h.addPreset(cmd)
	train.add(cmd, true)
	test.add(cmd, false)
	intVar(cmd.Flags(), &trials, "trials", compareTrials, 1, maxTrials, "trials per learner")
	cmd.Flags().StringVar(&learner, "models", "2dscn,scn,2drvfl,rvfl", "learners to compare")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no line per fit")
	return cmd
}

// comparePreflight refuses, before the images are read, fits that their
// headers say cannot fit in the memory limit (peekShape); the test set
// counts when its headers tell its size too.
func comparePreflight(cfgs []scn.Config, sel *scn.Selection, train, test *dataFlags, p dataset.Preprocess) error {
	tr, ok := train.peekShape("train", p)
	if !ok {
		return nil
	}
	if p.Channels == 0 {
		p.Channels = tr.Channels // as the test set is read below
	}
	var testBytes int64
	if te, ok := test.peekShape("test", p); ok {
		testBytes = te.Bytes()
	}
	for _, cfg := range cfgs {
		if err := currentMemCap().checkFit(cfg, sel, tr, testBytes); err != nil {
			return err
		}
	}
	return nil
}

// given reports whether any data source flag is set.
func (d *dataFlags) given() bool {
	return d.idxImages != "" || d.folder != "" || d.csv != "" || d.derived != "" || d.numpy.given()
}

// parseKinds reads "2dscn,scn".
func parseKinds(s string) ([]scn.Kind, error) {
	var out []scn.Kind
	names, err := splitList(s)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		k, err := scn.ParseKind(n)
		if err != nil {
			return nil, usageError{err}
		}
		out = append(out, k)
	}
	return out, nil
}
