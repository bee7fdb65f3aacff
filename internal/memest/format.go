package memest

import (
	"fmt"
	"math"
)

// FormatBytes renders a byte count for people, in binary units: "512 B",
// "1.5 GiB" (three significant digits), up to PiB. It is the one
// rendering of the estimates' bytes in messages (cmd/scn's memory limit,
// dataset's refusals).
func FormatBytes(n int64) string {
	f := float64(n)
	for _, u := range []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"} {
		if math.Abs(f) < 1024 || u == "PiB" {
			if u == "B" {
				return fmt.Sprintf("%d B", n)
			}
			return fmt.Sprintf("%.3g %s", f, u)
		}
		f /= 1024
	}
	return ""
}
