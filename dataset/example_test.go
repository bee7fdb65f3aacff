package dataset_test

import (
	"fmt"

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
