package main

import (
	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/internal/perf"
	"github.com/spf13/cobra"
)

func newBench() *cobra.Command {
	var (
		o     perf.Options
		h     hyperFlags
		d     dataFlags
		synth bool
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure a fit: time per node by part, rates, memory, prediction, speed-up over the reference",
		Long: `Fit one learner and report the time per node split into scoring,
selection and orthogonalisation, their GFLOP/s and GB/s, wall time, peak
memory, prediction throughput, and the speed-up over the plain reference
implementation (pseudo-inverse per node, one candidate at a time) measured in
the same run on a smaller problem. The learner uses the paper preset; only
--model, --nodes and --seed choose it. Without data flags it uses N synthetic
28 x 28 images.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			k, err := h.kind()
			if err != nil {
				return err
			}
			o.Kind, o.Nodes, o.Seed = k, h.nodes, h.seed
			if !synth {
				s, err := d.load("train", dataset.Preprocess{Invert: "no"}) // bench has no preprocessing flags
				if err != nil {
					return err
				}
				if o.Train, err = s.Problem(); err != nil {
					return err
				}
			}
			r, err := perf.Run(cmd.Context(), o)
			if err != nil {
				return err
			}
			return r.Print(cmd.OutOrStdout())
		},
	}
	// The bench fits the paper preset: only the learner, L_max and the seed
	// are flags (hyper-parameter flags would be ignored, so there are none).
	h.addModel(cmd)
	h.addRun(cmd, 300)
	d.add(cmd, false)
	f := cmd.Flags()
	f.IntVar(&o.N, "n", 5000, "synthetic images")
	f.IntVar(&o.RefN, "ref-n", 1000, "images of the reference comparison")
	f.IntVar(&o.RefNodes, "ref-nodes", 30, "nodes of the reference comparison (0: skip it)")
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		synth = !d.given()
	}
	return cmd
}
