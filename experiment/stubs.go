package experiment

import (
	"context"
	"errors"
)

var errTODO = errors.New("experiment: not implemented yet")

func runRotation(ctx context.Context, o Options, r *Result) error   { return errTODO }
func runDigits(ctx context.Context, o Options, r *Result) error     { return errTODO }
func runFaces(ctx context.Context, o Options, r *Result) error      { return errTODO }
func runIndicator(ctx context.Context, o Options, r *Result) error  { return errTODO }
func runRobustness(ctx context.Context, o Options, r *Result) error { return errTODO }
func runSize(ctx context.Context, o Options, r *Result) error       { return errTODO }
