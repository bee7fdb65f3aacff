package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/scn2d/scn/experiment"
	"github.com/scn2d/scn/internal/atomicfile"
	"github.com/spf13/cobra"
)

func newExperiment() *cobra.Command {
	var (
		o        experiment.Options
		quiet    bool
		reportTo string
	)
	names := experiment.Names()
	cmd := &cobra.Command{
		Use:   "experiment NAME|all",
		Short: "Reproduce an experiment of the paper (E1-E7)",
		Long: "Run one of the paper's experiments, or all, with the paper's protocol by\n" +
			"default (--quick scales it down), and write result.json, CSV tables and a\n" +
			"self-contained report.html under --out/NAME. Each fit's results are kept\n" +
			"under --out/trials as it ends: a rerun with the same --out, seed and\n" +
			"protocol reads them instead of fitting again (--fresh refits), so an\n" +
			"interrupted run resumes where it stopped. \"scn experiment report\" writes\n" +
			"REPRODUCTION.md from the results in --out (a comma-separated list: each\n" +
			"experiment from the first folder holding it): claim by claim, the paper's\n" +
			"statement, the measured figures and the verdict. Experiments:\n\n" + describeAll(names),
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && strings.EqualFold(args[0], "report") {
				return writeReproduction(cmd, o.OutDir, reportTo)
			}
			needData := false
			for _, name := range args {
				if !strings.EqualFold(name, "all") && experiment.Describe(name) == "" {
					return usageError{fmt.Errorf("unknown experiment %q (want one of %s, e1..e7 or all)", name, strings.Join(names, ", "))}
				}
				if n := strings.ToLower(name); n != "smallweights" && n != "e6" {
					needData = true
				}
			}
			if _, err := os.Stat(o.DataDir); err != nil && needData {
				return fmt.Errorf("data folder %s: %w (give --data)", o.DataDir, err)
			}
			o.Command = "scn " + strings.Join(os.Args[1:], " ")
			if !quiet {
				o.Log = cmd.ErrOrStderr()
			}
			for _, name := range args {
				r, err := experiment.Run(cmd.Context(), name, o)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s (%s)\n", name, r.Dir, r.Elapsed)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.DataDir, "data", experiment.DefaultDataDir, "folder holding mnist/, fashion-mnist/, orl_faces/, cvl-digits.tar.gz")
	f.StringVar(&o.OutDir, "out", experiment.DefaultOutDir, "folder for results")
	intVar(f, &o.Trials, "trials", 0, 0, maxTrials, "trials (0: the protocol's); for E6, thousands of draws")
	f.BoolVar(&o.Quick, "quick", false, "scaled-down protocol that finishes in about a minute")
	uint64Var(f, &o.Seed, "seed", 1, "base seed (trial t uses seed+t)")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress lines")
	f.StringVarP(&reportTo, "output", "o", "", "scn experiment report: the file to write (default: REPRODUCTION.md in --out)")
	intVar(f, &o.Jobs, "jobs", 0, 0, 1024, "trials fitted at a time (0: one per processor); results do not depend on it, fit times do")
	f.BoolVar(&o.Fresh, "fresh", false, "fit every trial again instead of reading the records an earlier run left under --out/trials (the new records replace them)")
	return cmd
}

func describeAll(names []string) string {
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "  %-13s %s\n", n, experiment.Describe(n))
	}
	b.WriteString("  all           every one of them\n")
	return b.String()
}

// writeReproduction writes REPRODUCTION.md from the results in dir to to
// (default dir/REPRODUCTION.md), atomically. dir may be a comma-separated
// list: each experiment's results come from the first folder holding them.
func writeReproduction(cmd *cobra.Command, dir, to string) error {
	dirs := strings.Split(dir, ",")
	dir = dirs[0]
	text, err := experiment.Reproduction(dir, dirs[1:]...)
	if err != nil {
		return err
	}
	if to == "" {
		to = filepath.Join(dir, "REPRODUCTION.md")
	}
	if err := atomicfile.Write(to, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", to)
	return nil
}
