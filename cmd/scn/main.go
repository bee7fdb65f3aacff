// Command scn trains, evaluates, compares and inspects two-dimensional
// stochastic configuration networks (2DSCN) and their baselines SCN, RVFL
// and 2DRVFL, and reproduces the experiments of the method's paper.
//
// Run "scn help" for the commands. With no arguments, "scn compare" fits
// the four learners on the built-in data set (a balanced MNIST subset
// embedded in the binary) and prints a table.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"
)

// usageError marks errors in the command line itself (exit status 2).
type usageError struct{ error }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root := newRoot()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return
	}
	// The library's errors carry their own "scn: " prefixes; say it once.
	fmt.Fprintf(os.Stderr, "scn: %s\n", strings.ReplaceAll(err.Error(), "scn: ", ""))
	var ue usageError
	if errors.As(err, &ue) {
		os.Exit(2)
	}
	os.Exit(1)
}

// newRoot builds the command tree.
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "scn",
		Short: "Train, evaluate and compare 2D stochastic configuration networks",
		Long: `scn trains, evaluates, compares and inspects two-dimensional stochastic
configuration networks (2DSCN) and their baselines SCN, RVFL and 2DRVFL, and
reproduces the experiments of the method's paper (E1-E7).`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newTrain(), newEval(), newPredict(), newCompare(), newExperiment(), newInspect(), newBench(), newVersion())
	return root
}

// noArgs is cobra.NoArgs with a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("%s takes no arguments, got %q", cmd.Name(), args)}
	}
	return nil
}

// nArgs requires at least n arguments.
func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageError{fmt.Errorf("%s needs %d argument(s): %s", cmd.Name(), n, cmd.Use)}
		}
		return nil
	}
}
