package drive

import "testing"

// TestModeOf: local nodes, then layers, then the one-node path, then one
// pass decide the driver, in that order.
func TestModeOf(t *testing.T) {
	for _, c := range []struct {
		local, layers, block, onePass bool
		want                          Mode
	}{
		{true, true, true, true, ModeLocal},
		{false, true, true, true, ModeDeep},
		{false, false, false, true, ModeOneNode},
		{false, false, true, true, ModeOnePass},
		{false, false, true, false, ModeBlock},
	} {
		if got := ModeOf(c.local, c.layers, c.block, c.onePass); got != c.want {
			t.Errorf("ModeOf(%v, %v, %v, %v) = %v, want %v", c.local, c.layers, c.block, c.onePass, got, c.want)
		}
	}
}
