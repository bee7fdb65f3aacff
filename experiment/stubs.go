package experiment

import (
	"context"
	"errors"
)

var errTODO = errors.New("experiment: not implemented yet")

func runSize(ctx context.Context, o Options, r *Result) error { return errTODO }
