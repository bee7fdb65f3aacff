//go:build tools

// Package scn: this file pins the modules the project depends on (removed once all are imported).
package scn

import (
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/image/bmp"
	_ "golang.org/x/term"
	_ "gonum.org/v1/gonum/blas/blas32"
	_ "gonum.org/v1/gonum/mat"
	_ "gonum.org/v1/plot"
)
