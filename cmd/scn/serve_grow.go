package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/serve"
)

// scn serve --learn --grow K: the training images of the model that grows
// (the --old-* flags, as scn update --grow takes them), read from their
// files again at each growth and dropped after it, not held between
// growths.

// trainImages are a model's training images read by the --old-* flags
// with the preprocessing the model recorded (serve.Images).
type trainImages struct {
	d    *dataFlags
	m    *scn.Model
	once sync.Once
	n    int
	err  error
}

func (ti *trainImages) read() (scn.Problem, error) {
	p, err := dataset.RecordedPreprocess(ti.m)
	if err != nil {
		return scn.Problem{}, err
	}
	s, err := ti.d.load("train", p)
	if err != nil {
		return scn.Problem{}, fmt.Errorf("the --old-* training images: %w", err)
	}
	if err := checkShape(ti.m, s); err != nil {
		return scn.Problem{}, fmt.Errorf("the --old-* training images: %w", err)
	}
	return s.Problem()
}

// Len is the images' count (read once at the start).
func (ti *trainImages) Len() int {
	ti.once.Do(func() {
		p, err := ti.read()
		ti.n, ti.err = p.X.Len(), err
	})
	return ti.n
}

// Batches reads the images and gives them 4096 at a time.
func (ti *trainImages) Batches(ctx context.Context, f func(scn.Problem) error) error {
	if ti.Len(); ti.err != nil {
		return ti.err
	}
	p, err := ti.read()
	if err != nil {
		return err
	}
	if p.X.Len() != ti.n {
		return fmt.Errorf("the --old-* training images are %d now, %d at the start", p.X.Len(), ti.n)
	}
	return serve.ProblemImages(p, 4096).Batches(ctx, f)
}

// trainingImages returns the --old-* images of the model at path, for
// --grow (nil without it).
func (lf *learnFlags) trainingImages(path string) (serve.Images, error) {
	if lf.o.Grow == 0 {
		return nil, nil
	}
	if lf.learners > 0 {
		return nil, usageError{fmt.Errorf("--grow with the --old-* training images serves one learning model: give one model")}
	}
	m, err := scn.Load(path)
	if err != nil {
		return nil, err
	}
	ti := &trainImages{d: &lf.old, m: m}
	if ti.Len(); ti.err != nil {
		return nil, ti.err
	}
	return ti, nil
}
