//go:build !linux

package main

import "errors"

// exchange is not available here: replaceFolder falls back to two renames.
func exchange(a, b string) error { return errors.ErrUnsupported }
