package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

func newTrain() *cobra.Command {
	var (
		h           hyperFlags
		d           dataFlags
		out         string
		quiet, part bool
	)
	cmd := &cobra.Command{
		Use:   "train",
		Short: "Fit one learner on a data set and save the model",
		Long: `Fit one learner (2dscn, scn, 2drvfl or rvfl) on a data set given as an IDX
pair, a folder of class subfolders, a CSV file, the train part of a folder
written by scn derive (--derived), or the built-in data set (the default), and
write a model file. Labels give classification; targets (--idx-targets, or a
derived set that has them) give regression. The preprocessing is recorded in
the model and applied again by eval and predict. A training set whose images
mostly look like dark ink on a light background gets a one-line note unless
--invert is given.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			k, err := h.kind()
			if err != nil {
				return err
			}
			cfg, err := h.config(k)
			if err != nil {
				return err
			}
			p, err := d.preprocess()
			if err != nil {
				return err
			}
			s, err := d.load("train", p)
			if err != nil {
				return err
			}
			polarityNote(cmd.ErrOrStderr(), s, &d)
			prob, err := s.Problem()
			if err != nil {
				return err
			}
			bar := newProgress(cfg.MaxNodes, k.Title(), quiet)
			m, err := cfg.Fit(cmd.Context(), prob, bar.step)
			bar.finish()
			if err != nil && errors.Is(err, context.Canceled) && !part {
				return interruptHint{err, "nothing saved (--save-partial keeps the nodes built so far)"}
			}
			if err != nil && errors.Is(err, context.Canceled) && (m == nil || m.Nodes() == 0) {
				return interruptHint{err, "no node was built, nothing saved"}
			}
			if err != nil && !(part && errors.Is(err, context.Canceled) && m != nil) {
				return err
			}
			recordData(m, s, p)
			if err := m.Save(out); err != nil {
				return err
			}
			summary(cmd.OutOrStdout(), m)
			fmt.Fprintf(cmd.OutOrStdout(), "saved %s\n", out)
			return nil
		},
	}
	h.add(cmd, 500)
	d.add(cmd, true)
	cmd.Flags().StringVarP(&out, "out", "o", "model.scn", "model file to write")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress bar")
	cmd.Flags().BoolVar(&part, "save-partial", false, "on Ctrl-C, save the nodes built so far")
	return cmd
}
