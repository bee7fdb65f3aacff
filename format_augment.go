package scn

import "fmt"

// The augmentation's record in a local model's file (format version 3):
// the field "augment" of the header's "local" (format_local.go), absent
// for models fitted without augmentation, whose bytes are unchanged.

// fileAugment is an augmentation in a local model's file header (the
// field "augment" of "local", format_local.go).
type fileAugment struct {
	Flip   bool `json:"flip,omitempty"`
	Shift  int  `json:"shift,omitempty"`
	Copies int  `json:"copies,omitempty"`
}

// toFileAugment returns the header field of an augmentation (nil for none).
func toFileAugment(a *Augment) *fileAugment {
	if a == nil {
		return nil
	}
	return &fileAugment{Flip: a.Flip, Shift: a.Shift, Copies: a.Copies}
}

// augment checks a local header's augmentation against images of rows x
// cols and returns it (nil when absent).
func (f *fileLocal) augment(rows, cols int) (*Augment, error) {
	if f == nil || f.Augment == nil {
		return nil, nil
	}
	a := &Augment{Flip: f.Augment.Flip, Shift: f.Augment.Shift, Copies: f.Augment.Copies}
	if err := a.ForImages(rows, cols); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return a, nil
}

// augmentOrNil returns the augmentation of a local header that localOf
// has checked (nil when absent).
func (f *fileLocal) augmentOrNil() *Augment {
	if f == nil || f.Augment == nil {
		return nil
	}
	return &Augment{Flip: f.Augment.Flip, Shift: f.Augment.Shift, Copies: f.Augment.Copies}
}
