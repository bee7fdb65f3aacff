//go:build !unix

package main

import "errors"

// mknodNull: no device files to make here.
func mknodNull(string) error { return errors.ErrUnsupported }
