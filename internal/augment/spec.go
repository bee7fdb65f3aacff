package augment

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Spec is an augmentation's setting: its fields are those of scn.Augment,
// which converts to and from it.
type Spec struct {
	Flip   bool // each image's mirror image (columns reversed)
	Shift  int  // the largest shift of the shifted copies in pixels (0: none)
	Copies int  // the shifted copies per image (>= 1 with Shift, 0 without)
}

// DefaultCopies is the shifted copies per image Parse gives a shift
// without copies.
const DefaultCopies = 1

// MaxShift bounds Spec.Shift (a shift must be less than the images' side
// besides), MaxCopies Spec.Copies.
const (
	MaxShift  = 1 << 16
	MaxCopies = 64
)

// Parse reads an augmentation as scn train's --augment takes it:
// comma-separated words flip, shift=S and copies=K (K defaults to
// DefaultCopies with a shift), e.g. "flip,shift=4" or "shift=2,copies=3".
// The result is validated; the errors say what is wrong with s.
func Parse(s string) (Spec, error) {
	var a Spec
	seen := map[string]bool{}
	copiesSet := false
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(strings.ToLower(w))
		key, val, hasVal := strings.Cut(w, "=")
		if seen[key] {
			return Spec{}, fmt.Errorf("augmentation %q: %s given twice", s, key)
		}
		seen[key] = true
		num := func() (int, error) {
			v, err := strconv.Atoi(val)
			if !hasVal || err != nil {
				return 0, fmt.Errorf("augmentation %q: want %s=N with a whole number N", s, key)
			}
			return v, nil
		}
		var err error
		switch key {
		case "flip":
			if hasVal {
				return Spec{}, fmt.Errorf("augmentation %q: flip takes no value", s)
			}
			a.Flip = true
		case "shift":
			a.Shift, err = num()
		case "copies":
			a.Copies, err = num()
			copiesSet = true
		case "":
			return Spec{}, fmt.Errorf("augmentation %q: empty word (want flip, shift=S, copies=K)", s)
		default:
			return Spec{}, fmt.Errorf("augmentation %q: unknown word %q (want flip, shift=S, copies=K)", s, key)
		}
		if err != nil {
			return Spec{}, err
		}
	}
	if a.Shift > 0 && !copiesSet {
		a.Copies = DefaultCopies
	}
	if err := a.Validate(); err != nil {
		return Spec{}, err
	}
	return a, nil
}

// Validate reports the first impossible setting, if any.
func (a Spec) Validate() error {
	bad := func(format string, v ...any) error {
		return errors.New("augmentation: " + fmt.Sprintf(format, v...))
	}
	switch {
	case a.Shift < 0 || a.Shift > MaxShift:
		return bad("shift %d, want 0 ... %d (less than the images' side)", a.Shift, MaxShift)
	case a.Copies < 0 || a.Copies > MaxCopies:
		return bad("copies %d, want 1 ... %d", a.Copies, MaxCopies)
	case a.Shift > 0 && a.Copies == 0:
		return bad("shift %d with 0 copies: want copies >= 1", a.Shift)
	case a.Shift == 0 && a.Copies > 0:
		return bad("%d copies without a shift: copies are shifted copies (add shift=S)", a.Copies)
	case !a.Flip && a.Shift == 0:
		return bad("nothing to add (want flip and/or shift=S)")
	}
	return nil
}

// Extra returns the augmented rows per image: 1 for Flip plus Copies.
func (a Spec) Extra() int {
	e := a.Copies
	if a.Flip {
		e++
	}
	return e
}

// String describes the augmentation as Parse takes it:
// "flip,shift=4,copies=2".
func (a Spec) String() string {
	var w []string
	if a.Flip {
		w = append(w, "flip")
	}
	if a.Shift > 0 {
		w = append(w, fmt.Sprintf("shift=%d", a.Shift), fmt.Sprintf("copies=%d", a.Copies))
	}
	return strings.Join(w, ",")
}
