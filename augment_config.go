package scn

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/scn2d/scn/internal/augment"
)

// The setting of data augmentation (Config.Augment) and the copies it
// makes of an image (drawn and made by internal/augment); the fit's use
// of them is in augment.go.

// Augment sets the data augmentation of a local fit (Config.Augment).
type Augment struct {
	// Flip adds each image's mirror image (columns reversed).
	Flip bool
	// Shift is the largest shift of the shifted copies in pixels (0:
	// none).
	Shift int
	// Copies is the shifted copies per image (>= 1 with Shift, 0
	// without).
	Copies int
}

// DefaultAugmentCopies is the shifted copies per image ParseAugment gives
// a shift without copies.
const DefaultAugmentCopies = 1

// maxAugmentShift bounds Augment.Shift (a shift must be less than the
// images' side besides).
const maxAugmentShift = 1 << 16

// maxAugmentCopies bounds Augment.Copies.
const maxAugmentCopies = 64

// ParseAugment reads an augmentation as scn train's --augment takes it:
// comma-separated words flip, shift=S and copies=K (K defaults to
// DefaultAugmentCopies with a shift), e.g. "flip,shift=4" or
// "shift=2,copies=3". The result is validated.
func ParseAugment(s string) (*Augment, error) {
	a := &Augment{}
	seen := map[string]bool{}
	copiesSet := false
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(strings.ToLower(w))
		key, val, hasVal := strings.Cut(w, "=")
		if seen[key] {
			return nil, fmt.Errorf("%w: augmentation %q: %s given twice", ErrConfig, s, key)
		}
		seen[key] = true
		num := func() (int, error) {
			v, err := strconv.Atoi(val)
			if !hasVal || err != nil {
				return 0, fmt.Errorf("%w: augmentation %q: want %s=N with a whole number N", ErrConfig, s, key)
			}
			return v, nil
		}
		var err error
		switch key {
		case "flip":
			if hasVal {
				return nil, fmt.Errorf("%w: augmentation %q: flip takes no value", ErrConfig, s)
			}
			a.Flip = true
		case "shift":
			a.Shift, err = num()
		case "copies":
			a.Copies, err = num()
			copiesSet = true
		case "":
			return nil, fmt.Errorf("%w: augmentation %q: empty word (want flip, shift=S, copies=K)", ErrConfig, s)
		default:
			return nil, fmt.Errorf("%w: augmentation %q: unknown word %q (want flip, shift=S, copies=K)", ErrConfig, s, key)
		}
		if err != nil {
			return nil, err
		}
	}
	if a.Shift > 0 && !copiesSet {
		a.Copies = DefaultAugmentCopies
	}
	if err := a.validate(); err != nil {
		return nil, err
	}
	return a, nil
}

// validate reports the first impossible setting, if any.
func (a *Augment) validate() error {
	bad := func(format string, v ...any) error {
		return fmt.Errorf("%w: augmentation: %s", ErrConfig, fmt.Sprintf(format, v...))
	}
	switch {
	case a.Shift < 0 || a.Shift > maxAugmentShift:
		return bad("shift %d, want 0 ... %d (less than the images' side)", a.Shift, maxAugmentShift)
	case a.Copies < 0 || a.Copies > maxAugmentCopies:
		return bad("copies %d, want 1 ... %d", a.Copies, maxAugmentCopies)
	case a.Shift > 0 && a.Copies == 0:
		return bad("shift %d with 0 copies: want copies >= 1", a.Shift)
	case a.Shift == 0 && a.Copies > 0:
		return bad("%d copies without a shift: copies are shifted copies (add shift=S)", a.Copies)
	case !a.Flip && a.Shift == 0:
		return bad("nothing to add (want flip and/or shift=S)")
	}
	return nil
}

// ForImages reports whether the augmentation can be applied to images of
// rows x cols: a shift must be less than both sides.
func (a *Augment) ForImages(rows, cols int) error {
	if err := a.validate(); err != nil {
		return err
	}
	if a.Shift >= min(rows, cols) {
		return fmt.Errorf("%w: augmentation: shift %d is not less than the image's side (%d x %d)", ErrConfig, a.Shift, rows, cols)
	}
	return nil
}

// Extra returns the augmented rows per training image: 1 for Flip plus
// Copies.
func (a *Augment) Extra() int {
	if a == nil {
		return 0
	}
	e := a.Copies
	if a.Flip {
		e++
	}
	return e
}

// String describes the augmentation as scn train's --augment takes it:
// "flip,shift=4,copies=2".
func (a *Augment) String() string {
	if a == nil {
		return "none"
	}
	var w []string
	if a.Flip {
		w = append(w, "flip")
	}
	if a.Shift > 0 {
		w = append(w, fmt.Sprintf("shift=%d", a.Shift), fmt.Sprintf("copies=%d", a.Copies))
	}
	return strings.Join(w, ",")
}

// clone returns a copy.
func (a *Augment) clone() *Augment {
	if a == nil {
		return nil
	}
	c := *a
	return &c
}

// validateAugment reports what an augmentation cannot be combined with.
func (c Config) validateAugment() error {
	if c.Augment == nil {
		return nil
	}
	if err := c.Augment.validate(); err != nil {
		return err
	}
	if c.Local == nil {
		return fmt.Errorf("%w: augmentation (Config.Augment) is for local nodes (Config.Local) only so far", ErrConfig)
	}
	return nil
}

// augMove is one augmented copy of an image (internal/augment's Move:
// mirrored or not, then shifted).
type augMove = augment.Move

// moves returns the augmented copies of n images, Extra() per image,
// image by image: the mirror image first (Flip), then the shifted copies
// (internal/augment's Moves).
func (a *Augment) moves(n int, seed uint64) []augMove {
	return a.movesFrom(0, n, seed)
}

// movesFrom is moves of images first ... first+n-1 of a set: their
// places' copies (augment.MovesFrom).
func (a *Augment) movesFrom(first, n int, seed uint64) []augMove {
	return augment.MovesFrom(a.Flip, a.Shift, a.Copies, first, n, seed)
}
