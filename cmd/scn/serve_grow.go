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
// files again at each growth, not held between growths: IDX files with
// labels a shard at a time (dataset.IDXSource), other sources whole for
// the growth's time.

// trainImages are a model's training images read by the --old-* flags
// with the preprocessing the model recorded (serve.Images).
type trainImages struct {
	d    *dataFlags
	m    *scn.Model
	once sync.Once
	n    int
	err  error
}

// stream returns the images as shards read from IDX files, if they are
// IDX files with labels (nil otherwise).
func (ti *trainImages) stream() (*dataset.IDXSource, error) {
	if ti.d.idxImages == "" || ti.d.idxLabels == "" {
		return nil, nil
	}
	p, err := dataset.RecordedPreprocess(ti.m)
	if err != nil {
		return nil, err
	}
	src, err := ti.d.idxSource(p)
	if err != nil {
		return nil, fmt.Errorf("the --old-* training images: %w", err)
	}
	if sh := src.Shape(); sh.Rows != ti.m.Rows || sh.Cols != ti.m.Cols {
		return nil, fmt.Errorf("the --old-* training images are %d x %d, the model's nodes take %d x %d", sh.Rows, sh.Cols, ti.m.Rows, ti.m.Cols)
	}
	return src, nil
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
		src, err := ti.stream()
		if err != nil || src != nil {
			if err == nil {
				ti.n = src.Len()
			}
			ti.err = err
			return
		}
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
	src, err := ti.stream()
	if err != nil {
		return err
	}
	if src != nil {
		seen := 0
		err := src.Shards(ctx, func(sh scn.Shard) error {
			seen += sh.X.Len()
			return f(sh.Problem)
		})
		if err == nil && seen != ti.n {
			err = fmt.Errorf("the --old-* training images are %d now, %d at the start", seen, ti.n)
		}
		return err
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
