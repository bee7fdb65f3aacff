package export_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/export"
)

// Fit a small 2DRVFL on the built-in digits and write it as an ONNX file
// and as NumPy arrays.
func Example() {
	train, _, err := dataset.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := scn.Classification(scn.Images{Rows: train.Rows, Cols: train.Cols, Pix: train.Pix}, train.Labels, train.Classes)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := scn.Paper(scn.RVFL2D)
	cfg.MaxNodes = 50
	m, err := cfg.Fit(context.Background(), p, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "export-example")
	defer os.RemoveAll(dir)
	if err := export.WriteONNX(filepath.Join(dir, "digits.onnx"), m, export.ONNXOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	arrays, err := export.NPZ(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range arrays {
		fmt.Println(a.Name, a.Array.Shape, a.Array.DType())
	}
	// Output:
	// u [50 28] <f4
	// v [50 28] <f4
	// b [50] <f4
	// beta [50 10] <f8
	// shape [2] <i8
	// kind [] <U6
	// activation [] <U7
	// classes [10] <U1
	// preprocessing [] <U2
}
