package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/spf13/cobra"
)

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, Go version and linear-algebra backend",
		Args:  noArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			v := "(devel)"
			if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
				v = bi.Main.Version
			}
			fmt.Fprintf(cmd.OutOrStdout(), "scn %s, %s %s/%s, linear algebra: %s\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH, linalg.Backend())
		},
	}
}
