package main

import (
	"fmt"
	"io"

	"github.com/scn2d/scn/dataset"
)

// loadResized reads a training folder whose images are of mixed sizes
// (mixed is the error that said so) at a size chosen from their sizes and
// the memory limit (dataset.WorkingSize), as Keras'
// image_dataset_from_directory resizes to its default size: it says what
// it chose, and returns the preprocessing with that size, which the model
// records so that eval, predict and serve resize new images the same way.
// --resize (or --mnist-normalize, which sets its own size) overrides it;
// an archive's folder and the other readers keep the error.
func (d *dataFlags) loadResized(p dataset.Preprocess, stderr io.Writer, mixed error) (*dataset.Set, dataset.Preprocess, error) {
	if d.folder == "" || p.ResizeRows > 0 || p.MNIST {
		return nil, p, mixed
	}
	if _, _, tar := tarFolder(d.folder); tar {
		return nil, p, mixed
	}
	z, err := dataset.FolderImageSizes(d.folder)
	if err != nil {
		return nil, p, err
	}
	chans := 1
	if z.Colour && p.Channels != 1 {
		chans = 3
	}
	rows, cols, err := dataset.WorkingSize(z, chans, memory.bytes)
	if err != nil {
		return nil, p, fmt.Errorf("%w (%v)", mixed, err)
	}
	p.ResizeRows, p.ResizeCols, p.Fit = rows, cols, "pad"
	fmt.Fprintf(stderr, "images of %d sizes (%d to %d rows, %d to %d columns): resizing them all to %d x %d (the median aspect ratio, the longer side at most %d, padded to keep each image's aspect; recorded in the model); --resize RxC chooses another size\n",
		z.Distinct, z.MinRows, z.MaxRows, z.MinCols, z.MaxCols, rows, cols, dataset.AutoMaxSide)
	s, err := d.load("train", p)
	return s, p, err
}
