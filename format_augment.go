package scn

import (
	"fmt"

	"github.com/scn2d/scn/internal/modelfile"
)

// The augmentation's mapping (the format: internal/modelfile).

// toFileAugment returns the header field of an augmentation (nil for none).
func toFileAugment(a *Augment) *modelfile.Augment {
	if a == nil {
		return nil
	}
	return &modelfile.Augment{Flip: a.Flip, Shift: a.Shift, Copies: a.Copies}
}

// checkAugment checks a local header's augmentation against images of
// rows x cols (modelrec.FromHeader's hook).
func checkAugment(f *modelfile.Local, rows, cols int) error {
	if a := augmentOrNil(f); a != nil {
		if err := a.ForImages(rows, cols); err != nil {
			return fmt.Errorf("%w: %v", ErrFormat, err)
		}
	}
	return nil
}

// augmentOrNil returns the augmentation of a local header (nil when
// absent).
func augmentOrNil(f *modelfile.Local) *Augment {
	if f == nil || f.Augment == nil {
		return nil
	}
	return &Augment{Flip: f.Augment.Flip, Shift: f.Augment.Shift, Copies: f.Augment.Copies}
}
