package dataset_test

import (
	"fmt"
	"os"

	"github.com/scn2d/scn/dataset"
)

// The built-in data set needs no file.
func ExampleDefault() {
	train, test, err := dataset.Default()
	if err != nil {
		panic(err)
	}
	fmt.Println(train.Len(), test.Len(), train.Rows, train.Cols, train.ClassCounts()[7])
	// Output: 3000 1000 28 28 300
}

// A derived set is written as ordinary files with its provenance, and read
// back as it was.
func ExampleBuildRotated() {
	train, test, err := dataset.Default()
	if err != nil {
		panic(err)
	}
	d, err := dataset.BuildRotated(train, test, 500, 200, 1)
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "rotated")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := d.Write(dir); err != nil {
		panic(err)
	}
	back, err := dataset.ReadDerived(dir)
	if err != nil {
		panic(err)
	}
	tr := back.Part("train")
	fmt.Println(back.Manifest.Seed, tr.Len(), back.Part("test").Len(), tr.TargetDim)
	fmt.Println(tr.Targets[0] == d.Part("train").Targets[0], tr.Labels[0] == train.Labels[tr.Origin[0]])
	// Output:
	// 1 500 200 1
	// true true
}

// Occlude pastes blocks of a built-in natural image into chosen images.
func ExampleOcclude() {
	train, _, err := dataset.Default()
	if err != nil {
		panic(err)
	}
	faces := train.Subset([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	out, blocks, err := dataset.Occlude(faces, 3, 10, 7)
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Len(), len(blocks), blocks[0].Size)
	// Output: 10 3 10
}
