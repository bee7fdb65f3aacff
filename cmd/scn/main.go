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
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// processStart is when the process started, near enough: a --budget counts
// from here, so that reading the data is paid from the budget.
var processStart = time.Now()

// usageError marks errors in the command line itself (exit status 2).
type usageError struct{ error }

// interruptHint adds a hint to the message of an interrupted command.
type interruptHint struct {
	error
	hint string
}

func (h interruptHint) Unwrap() error { return h.error }

// Exit statuses.
const (
	exitError       = 1   // a missing or bad file, a failed fit, ...
	exitUsage       = 2   // a bad flag or argument
	exitInterrupted = 130 // Ctrl-C (128 + SIGINT), as shells report it
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// After the first Ctrl-C the command winds down (train saves what it
		// has with --save-partial); a second one ends the process at once.
		<-ctx.Done()
		stop()
	}()
	err := newRoot().ExecuteContext(ctx)
	if profileFile != nil {
		pprof.StopCPUProfile()
		profileFile.Close()
	}
	if err == nil {
		return
	}
	msg, code := describeError(err, ctx.Err() != nil)
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(code)
}

// describeError turns an error into the one line the command prints and
// its exit status; interrupted says whether a signal cancelled the run.
func describeError(err error, interrupted bool) (string, int) {
	if interrupted && errors.Is(err, context.Canceled) {
		msg := "scn: interrupted"
		var h interruptHint
		if errors.As(err, &h) {
			msg += "; " + h.hint
		}
		return msg, exitInterrupted
	}
	// One line, starting with "scn: " once: the root package's errors
	// already start with it, others get it added. Nothing else is changed.
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if !strings.HasPrefix(msg, "scn: ") {
		msg = "scn: " + msg
	}
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command ") {
		return msg, exitUsage
	}
	return msg, exitError
}

// memory is the value of --max-memory of the command tree built last
// (newRoot resets it to the default).
var memory memLimit

// currentMemCap returns the memory limit of the running command.
func currentMemCap() memCap { return memCap{memory} }

// profileFile is the open --cpu-profile file, if any.
var profileFile *os.File

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
	addMemoryFlag(root.PersistentFlags(), &memory)
	// --cpu-profile FILE writes a pprof CPU profile of the command (hidden:
	// a developer's tool, read with go tool pprof).
	var profile string
	root.PersistentFlags().StringVar(&profile, "cpu-profile", "", "write a CPU profile (pprof) of the command to this file")
	_ = root.PersistentFlags().MarkHidden("cpu-profile")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		currentMemCap().apply()
		if profile == "" {
			return nil
		}
		f, err := os.Create(profile)
		if err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		profileFile = f
		return pprof.StartCPUProfile(f)
	}
	root.AddCommand(newTrain(), newEval(), newPredict(), newCompare(), newExperiment(), newDerive(), newInspect(), newExport(), newServe(), newBench(), newVersion(), newStats(), newSolve(), newUpdate())
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
