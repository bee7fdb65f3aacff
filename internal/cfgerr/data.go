package cfgerr

import "fmt"

// DataError is an error about the data (images, targets, classes or
// counts that do not fit) found by a package under the root: the root
// package reports it wrapping its ErrData (scn.ErrData is the root's own
// value), with the same message after ErrData's.
type DataError string

func (e DataError) Error() string { return string(e) }

// Data returns the DataError of the formatted message.
func Data(format string, args ...any) error { return DataError(fmt.Sprintf(format, args...)) }
