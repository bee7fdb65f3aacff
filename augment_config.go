package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/augment"
)

// The setting of data augmentation (Config.Augment) and the copies it
// makes of an image (drawn and made by internal/augment); the fit's use
// of them is in internal/localnet's augment.go.

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
const DefaultAugmentCopies = augment.DefaultCopies

// ParseAugment reads an augmentation as scn train's --augment takes it:
// comma-separated words flip, shift=S and copies=K (K defaults to
// DefaultAugmentCopies with a shift), e.g. "flip,shift=4" or
// "shift=2,copies=3". The result is validated (internal/augment's Parse).
func ParseAugment(s string) (*Augment, error) {
	sp, err := augment.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	a := Augment(sp)
	return &a, nil
}

// validate reports the first impossible setting, if any (internal/augment's
// Spec.Validate).
func (a *Augment) validate() error {
	if err := augment.Spec(*a).Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
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
	return augment.Spec(*a).Extra()
}

// String describes the augmentation as scn train's --augment takes it:
// "flip,shift=4,copies=2".
func (a *Augment) String() string {
	if a == nil {
		return "none"
	}
	return augment.Spec(*a).String()
}

// clone returns a copy.
func (a *Augment) clone() *Augment {
	if a == nil {
		return nil
	}
	c := *a
	return &c
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
