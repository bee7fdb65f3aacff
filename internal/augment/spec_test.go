package augment

import (
	"strings"
	"testing"
)

// TestParse: the words, their defaults and case, and every kind of bad
// input refused with a message that names it.
func TestParse(t *testing.T) {
	for s, want := range map[string]Spec{
		"flip":                  {Flip: true},
		"shift=4":               {Shift: 4, Copies: DefaultCopies},
		"flip,shift=2,copies=3": {Flip: true, Shift: 2, Copies: 3},
		" FLIP , Shift=3 ":      {Flip: true, Shift: 3, Copies: 1},
		"copies=2,shift=1":      {Shift: 1, Copies: 2},
	} {
		got, err := Parse(s)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for s, says := range map[string]string{
		"":                  "empty word",
		"flip,flip":         "given twice",
		"shift":             "want shift=N",
		"shift=x":           "want shift=N",
		"flip=1":            "takes no value",
		"bogus":             "unknown word",
		"copies=2":          "without a shift",
		"shift=0":           "nothing to add",
		"shift=-1":          "shift -1",
		"shift=70000":       "shift 70000",
		"shift=2,copies=65": "copies 65",
		"shift=2,copies=0":  "0 copies",
	} {
		if _, err := Parse(s); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("Parse(%q): %v, want an error saying %q", s, err, says)
		}
	}
}

// TestSpecStringExtra: String is what Parse reads back, Extra the rows
// each image adds.
func TestSpecStringExtra(t *testing.T) {
	for _, a := range []Spec{{Flip: true}, {Shift: 2, Copies: 3}, {Flip: true, Shift: 1, Copies: 1}} {
		b, err := Parse(a.String())
		if err != nil || b != a {
			t.Errorf("%+v: String %q parses to %+v, %v", a, a.String(), b, err)
		}
		want := a.Copies
		if a.Flip {
			want++
		}
		if a.Extra() != want {
			t.Errorf("%+v: Extra %d, want %d", a, a.Extra(), want)
		}
	}
}

// FuzzParse: any input is a valid Spec or an error, never a panic; a
// valid one's String parses back to it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"flip", "shift=4", "flip,shift=2,copies=3", "", ",,", "copies=9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if err != nil {
			return
		}
		if a.Validate() != nil {
			t.Fatalf("Parse(%q) gave an invalid %+v", s, a)
		}
		if b, err := Parse(a.String()); err != nil || b != a {
			t.Fatalf("Parse(%q) = %+v; its String %q parses to %+v, %v", s, a, a.String(), b, err)
		}
	})
}
