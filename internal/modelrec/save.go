package modelrec

import (
	"io"
	"strings"

	"github.com/scn2d/scn/internal/atomicfile"
)

// Save writes wt (a model or statistics) to path atomically
// (internal/atomicfile), an error being "scn: save path: ..." (Wrap).
func Save(path string, wt io.WriterTo) error {
	err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
	if err != nil {
		return Wrap("save "+path, err)
	}
	return nil
}

// prefixedError is an error whose message says "scn: " once: what wraps it
// drops the "scn: " its message starts with.
type prefixedError struct {
	msg string
	err error
}

// Error returns the message with "scn: " once.
func (e *prefixedError) Error() string { return e.msg }

// Unwrap returns the error wrapped.
func (e *prefixedError) Unwrap() error { return e.err }

// Wrap returns "scn: what: err", with err's own "scn: " prefix dropped
// from the message (it still wraps err).
func Wrap(what string, err error) error {
	return &prefixedError{msg: "scn: " + what + ": " + strings.TrimPrefix(err.Error(), "scn: "), err: err}
}
