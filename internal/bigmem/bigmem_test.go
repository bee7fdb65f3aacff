package bigmem

import "testing"

// TestFloat64sZeroedAndWritable: small and large buffers are zero, of the
// length asked for, and hold what is written to them.
func TestFloat64sZeroedAndWritable(t *testing.T) {
	for _, n := range []int{0, 1, 1000, Threshold/8 + 12345} {
		s := Float64s(n)
		if len(s) != n {
			t.Fatalf("len %d, want %d", len(s), n)
		}
		for i, v := range s {
			if v != 0 {
				t.Fatalf("n = %d: s[%d] = %v", n, i, v)
			}
		}
		for i := range s {
			s[i] = float64(i)
		}
		for i, v := range s {
			if v != float64(i) {
				t.Fatalf("n = %d: s[%d] = %v after writing", n, i, v)
			}
		}
	}
}
