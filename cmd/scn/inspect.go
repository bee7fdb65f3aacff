package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/spf13/cobra"
)

func newInspect() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inspect MODEL",
		Short: "Show what a model file holds",
		Long: `Show what a model file holds, from its header (scn.LoadInfo): the weights
are not read, so a large model is described at once; the file's size is
checked against the header (eval and predict verify the weights' checksum).`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := scn.LoadInfo(args[0])
			if err != nil {
				return err
			}
			info := map[string]any{
				"file": args[0], "bytes": m.FileBytes, "kind": m.Kind.String(),
				"rows": m.Rows, "cols": m.Cols, "channels": m.Chans(), "outputs": m.M, "nodes": m.Nodes,
				"params_per_node": m.ParamsPerNode(), "parameters": m.ParamCount(),
				"activation": m.Activation.String(), "preset": m.Config.Preset, "seed": m.Config.Seed,
				"max_nodes": m.Config.MaxNodes, "candidates": m.Config.Candidates,
				"scales": m.Config.Scales, "ratios": m.Config.Ratios,
				"tolerance": m.Config.Tolerance, "ridge": m.Config.Ridge,
				"samples": m.Summary.Samples, "stop": m.Summary.Stop.String(),
				"train_rmse": m.Summary.TrainRMSE, "tried": m.Summary.Tried, "rejected": m.Summary.Rejected,
				"classes": m.Classes, "preprocessing": m.Preprocessing, "meta": m.Meta,
			}
			if m.Config.Redraw {
				info["redraw"] = true
			}
			if m.Layers != nil {
				info["layers"] = m.Layers
			}
			if m.Local != nil {
				info["local"] = localJSON(m)
				if s := secondJSON(m); s != nil {
					info["local"].(map[string]any)["second"] = s
				}
				if a := m.Config.Augment; a != nil {
					info["augment"] = map[string]any{"flip": a.Flip, "shift": a.Shift, "copies": a.Copies, "rows_per_image": 1 + a.Extra()}
				}
				delete(info, "params_per_node") // per filter: in "local"
			}
			if m.DirectFeatures > 0 {
				info["direct_link"] = map[string]int{"pool": m.DirectPool, "features": m.DirectFeatures}
			}
			if m.Selection != nil {
				info["selection"] = m.Selection
			}
			if m.Budget != nil {
				info["budget"] = m.Budget
			}
			addCalibInfo(info, m)
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(info)
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintf(w, "file\t%s (%d bytes)\n", args[0], m.FileBytes)
			fmt.Fprintf(w, "model\t%s: %s input, %d outputs, %d nodes\n", m.Kind.Title(), inputShape(m.Rows, m.Cols, m.Chans()), m.M, m.Nodes)
			if m.Local != nil {
				fmt.Fprintf(w, "parameters\t%d (%s)\n", m.ParamCount(), localParams(m))
				fmt.Fprintf(w, "local nodes\t%s\n", localLine(m))
				if s := secondLine(m); s != "" {
					fmt.Fprintf(w, "\t%s\n", s)
				}
				if a := m.Config.Augment; a != nil {
					fmt.Fprintf(w, "augmentation\t%s\n", augmentLine(a))
				}
			} else {
				fmt.Fprintf(w, "parameters\t%d (%d per node + bias + %d output weights)\n", m.ParamCount(), m.ParamsPerNode(), m.M)
			}
			if m.Layers != nil {
				fmt.Fprintf(w, "layers\t%v (the first on the image, each further one supervised 1D nodes on the previous layer's outputs; a further node has the previous layer's width + bias + %d output weights)\n", m.Layers, m.M)
			}
			if m.DirectFeatures > 0 {
				fmt.Fprintf(w, "direct links\t%s\n", directLine(m.DirectPool, m.DirectFeatures, m.Rows, m.Cols, m.Chans(), m.M))
			}
			fmt.Fprintf(w, "activation\t%s\n", m.Activation)
			c := m.Config
			fmt.Fprintf(w, "preset\t%s, seed %d, L_max %d, T_max %d, tolerance %g, ridge %g\n", c.Preset, c.Seed, c.MaxNodes, c.Candidates, c.Tolerance, c.Ridge)
			fmt.Fprintf(w, "scales\t%v\n", c.Scales)
			if c.BlockSize > 0 && m.Local == nil {
				fields := "whole image"
				if c.FieldMax > 0 {
					fields = fmt.Sprintf("fields of %d to %d pixels", c.FieldMin, c.FieldMax)
				}
				fmt.Fprintf(w, "nodes\tblocks of %d, %s, standardised %v, difference nodes %v\n", c.BlockSize, fields, c.Standardize, c.Differences)
			}
			if m.Kind.Choice == scn.Supervised {
				fmt.Fprintf(w, "ratios\t%v\n", c.Ratios)
				if c.Redraw {
					fmt.Fprintf(w, "search\tnew candidates for every (scale, r) pair (--redraw)\n")
				}
			}
			s := m.Summary
			if c := m.Selection; c != nil {
				fmt.Fprintf(w, "selection\t%s\n", selectionLine(m.Selection))
				fmt.Fprintf(w, "\t%s\n", c.Refit)
				fmt.Fprintf(w, "validation curve\t%s\n", curveSummary(c))
			}
			if b := m.Budget; b != nil {
				fmt.Fprintf(w, "budget\t%s\n", budgetPlanLine(b.Budget, b.Plan))
				fmt.Fprintf(w, "\t%s\n", budgetOutcomeLine(b, m.Selection))
				fmt.Fprintf(w, "checkpoints\t%s\n", checkpointsLine(b))
			}
			fmt.Fprintf(w, "training\t%d images, %v, RMSE %.5g, %d candidates scored, %d rejected\n", s.Samples, s.Stop, s.TrainRMSE, s.Tried, s.Rejected)
			if m.Classes != nil {
				fmt.Fprintf(w, "classes\t%s\n", strings.Join(m.Classes, " "))
			}
			printCalibInfo(w, m)
			fmt.Fprintf(w, "preprocessing\t%s\n", dataset.Preprocess(m.Preprocessing))
			for _, k := range sortedKeys(m.Meta) {
				fmt.Fprintf(w, "%s\t%s\n", k, m.Meta[k])
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// curveSummary gives the held-out score of the chosen ridge term at a few
// prefix lengths: the shape of the validation curve in one line.
func curveSummary(c *scn.Choice) string {
	var pts []string
	var at []scn.Score
	for _, s := range c.Curve {
		if s.Ridge == c.Ridge {
			at = append(at, s)
		}
	}
	step := max(1, len(at)/8)
	for i := 0; i < len(at); i += step {
		s := at[i]
		v := fmt.Sprintf("%.4g", s.RMSE)
		if c.Metric == "accuracy" {
			v = fmt.Sprintf("%.1f%%", 100*s.Accuracy)
		}
		pts = append(pts, fmt.Sprintf("L=%d %s", s.Nodes, v))
	}
	return strings.Join(pts, ", ") + fmt.Sprintf(" (ridge %g; all %d points with --json)", c.Ridge, len(c.Curve))
}

// inputShape describes a model's input: "rows x cols" for grey images,
// "rows x cols x C" for images of C > 1 channels.
func inputShape(rows, cols, chans int) string {
	if chans > 1 {
		return fmt.Sprintf("%d x %d x %d", rows, cols, chans)
	}
	return fmt.Sprintf("%d x %d", rows, cols)
}

// directLine describes a model's direct links: what the output layer reads
// besides the hidden nodes.
func directLine(pool, features, rows, cols, chans, m int) string {
	what := "the preprocessed pixels"
	if pool > 1 {
		what = fmt.Sprintf("the preprocessed pixels averaged over %d x %d blocks (%d x %d per plane)", pool, pool, rows/pool, cols/pool)
	}
	return fmt.Sprintf("%d features, %s, to the %d outputs (%d weights)", features, what, m, features*m)
}
