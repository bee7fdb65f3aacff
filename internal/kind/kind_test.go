package kind

import "testing"

func TestKinds(t *testing.T) {
	names := []string{"2dscn", "scn", "2drvfl", "rvfl"}
	for i, k := range Kinds() {
		if !k.Valid() || k.String() != names[i] {
			t.Errorf("%d: %v (valid %v), want %s", i, k, k.Valid(), names[i])
		}
		for _, s := range []string{k.String(), k.Title()} {
			if got, err := Parse(s); err != nil || got != k {
				t.Errorf("Parse(%q) = %v, %v", s, got, err)
			}
		}
	}
	if SCN2D.Title() != "2DSCN" {
		t.Errorf("Title = %q", SCN2D.Title())
	}
	Kinds()[0] = RVFL
	if Kinds()[0] != SCN2D {
		t.Error("Kinds shares its slice")
	}
	if _, err := Parse("svm"); err == nil {
		t.Error("Parse(svm) accepted")
	}
	if (Kind{Input: 2}).Valid() || (Kind{Choice: -1}).Valid() {
		t.Error("a cell off the grid is valid")
	}
}
