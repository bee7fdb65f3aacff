package scn

import "testing"

// TestForImagesScalesTheFastFields: 28 x 28 keeps the preset's fields, a
// face gets them in proportion, tiny images stay within the image, and
// other configurations are left alone.
func TestForImagesScalesTheFastFields(t *testing.T) {
	c := Fast(RVFL)
	for _, tc := range []struct{ rows, cols, lo, hi int }{
		{28, 28, 5, 27}, {112, 92, 16, 89}, {320, 243, 43, 234}, {8, 8, 2, 8}, {1, 50, 2, 2},
	} {
		got := c.ForImages(tc.rows, tc.cols)
		if got.FieldMin != tc.lo || got.FieldMax != tc.hi {
			t.Errorf("%d x %d: fields %d-%d, want %d-%d", tc.rows, tc.cols, got.FieldMin, got.FieldMax, tc.lo, tc.hi)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("%d x %d: %v", tc.rows, tc.cols, err)
		}
	}
	own := c
	own.FieldMin, own.FieldMax = 3, 9
	if got := own.ForImages(112, 92); got.FieldMin != 3 || got.FieldMax != 9 {
		t.Errorf("fields set by hand were rescaled to %d-%d", got.FieldMin, got.FieldMax)
	}
	if got := Default(SCN2D).ForImages(112, 92); got.FieldMax != 0 {
		t.Errorf("the default preset (whole image) got fields %d-%d", got.FieldMin, got.FieldMax)
	}
}
