package dataset

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/scn2d/scn/internal/memest"
)

// memoryLimit is the limit SetMemoryLimit sets (0: none).
var memoryLimit atomic.Int64

// SetMemoryLimit bounds the bytes a reader or Prepare may allocate for one
// data set (the decompressed file and the images as float32), checked
// against what a file's header claims or what preprocessing will make
// before any of it is allocated; 0 or less removes the limit (the
// default). It returns the previous limit. The limit holds for the whole
// process.
func SetMemoryLimit(bytes int64) int64 { return memoryLimit.Swap(max(bytes, 0)) }

// ErrTooLarge is wrapped by every error about a data set that would take
// more memory than the limit SetMemoryLimit set.
var ErrTooLarge = errors.New("data set too large for the memory limit")

// checkMemory refuses need bytes for what when they exceed the limit.
func checkMemory(need int64, what string) error {
	lim := memoryLimit.Load()
	if lim <= 0 || need <= lim {
		return nil
	}
	return fmt.Errorf("%w: %s need about %s, the limit is %s", ErrTooLarge, what, formatBytes(need), formatBytes(lim))
}

// formatBytes renders a byte count: "1.5 GiB" (memest.FormatBytes, the
// library's one rendering).
func formatBytes(n int64) string { return memest.FormatBytes(n) }

// openFile opens a file to read, refusing a directory with an error that
// says so (reading one fails with a less helpful message).
func openFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("dataset: %s is a directory, not a file", path)
	}
	return f, nil
}
