package npy_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/scn2d/scn/npy"
)

// Write two arrays to a .npz file, as numpy.savez_compressed would, and
// read one back.
func Example() {
	dir, _ := os.MkdirTemp("", "npy-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "data.npz")

	x, _ := npy.New([]uint8{0, 255, 128, 64, 1, 2}, 1, 2, 3) // one 2 x 3 image
	y, _ := npy.New([]int64{7}, 1)
	if err := npy.WriteNPZFile(path, true, npy.Named{Name: "x", Array: x}, npy.Named{Name: "y", Array: y}); err != nil {
		fmt.Println(err)
		return
	}

	z, err := npy.OpenNPZ(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer z.Close()
	back, err := z.Array("x")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(z.Names(), back.DType(), back.Shape, back.Data)
	// Output: [x y] |u1 [1 2 3] [0 255 128 64 1 2]
}
