package main

import (
	"fmt"

	"github.com/scn2d/scn"
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
			n, rows, cols, m := o.N, 28, 28, 10
			if sh, ok := d.peekShape("train", dataset.Preprocess{Invert: "no"}); ok && !synth {
				// Refused before the images are read.
				if err := checkBench(o, k, sh.N, sh.Rows, sh.Cols, sh.Outputs()); err != nil {
					return err
				}
			}
			if !synth {
				s, err := d.load("train", dataset.Preprocess{Invert: "no"}) // bench has no preprocessing flags
				if err != nil {
					return err
				}
				if err := checkTrainClasses(cmd.ErrOrStderr(), s); err != nil {
					return err
				}
				if o.Train, err = s.Problem(); err != nil {
					return err
				}
				n, rows, cols, m = s.Len(), s.Rows, s.Cols, outputs(s)
			}
			if err := checkBench(o, k, n, rows, cols, m); err != nil {
				return err
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
	intVar(f, &o.N, "n", 5000, 1, 1<<24, "synthetic images")
	intVar(f, &o.RefN, "ref-n", 1000, 1, 1<<24, "images of the reference comparison")
	intVar(f, &o.RefNodes, "ref-nodes", 30, 0, maxNodesFlag, "nodes of the reference comparison (0: skip it)")
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		synth = !d.given()
	}
	return cmd
}

// checkBench refuses a bench whose memory exceeds the budget: the images,
// the fit, the 1 GiB buffer of the bandwidth measurement and the reference
// comparison (float64 images, H and its pseudo-inverse per node).
func checkBench(o perf.Options, k scn.Kind, n, rows, cols, m int) error {
	cfg := scn.Paper(k)
	cfg.MaxNodes = o.Nodes
	d := int64(rows) * int64(cols)
	fit := cfg.Estimate(scn.Shape{N: n, Rows: rows, Cols: cols, Channels: 1, Labels: true, Classes: m}, nil).Fit
	need := int64(n)*d*4 + fit.Total() + 1<<30
	hint := "lower --nodes or --n"
	if o.RefNodes > 0 {
		ref := scn.Paper(k)
		ref.MaxNodes = o.RefNodes
		rn, rl := int64(o.RefN), int64(o.RefNodes)
		refNeed := rn*d*12 + ref.Estimate(scn.Shape{N: o.RefN, Rows: rows, Cols: cols, Channels: 1, Labels: true, Classes: 10}, nil).Fit.Total() + 4*8*rn*rl + 8*rl*rl
		need += refNeed
		if refNeed > need/2 {
			hint = "lower --ref-n or --ref-nodes"
		}
	}
	what := fmt.Sprintf("benchmarking %s with --nodes %d on %d images of %d x %d", k.Title(), o.Nodes, n, rows, cols)
	return currentMemCap().check(need, what, hint)
}
