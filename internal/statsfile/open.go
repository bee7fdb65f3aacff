package statsfile

import (
	"fmt"
	"os"
)

// Open opens the statistics file at path for reading and returns it with
// its size (-1 when it is not a regular file) and, if lazy and the size
// is known, where its G lies (GramAt) for a reader to leave it unread.
// Its error starts "scn: load statistics".
func Open(path string, lazy bool) (*os.File, int64, *GramAt, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("scn: load statistics: %w", err)
	}
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	var skip *GramAt
	if lazy && size >= 0 {
		skip = &GramAt{Path: path, Size: size}
	}
	return f, size, skip, nil
}
