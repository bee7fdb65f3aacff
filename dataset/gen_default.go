//go:build ignore

// gen_default writes the built-in data set into embedded/: a balanced
// subset of MNIST (300 training and 100 test images per digit, drawn with
// seed 20261122). Run from this folder: go run gen_default.go [mnist dir].
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/scn2d/scn/dataset"
)

func main() {
	dir := "../../shared/data/mnist"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	r := rand.New(rand.NewPCG(20261122, 1))
	for _, part := range []struct {
		in, out  string
		perClass int
	}{{"train", "train", 300}, {"t10k", "test", 100}} {
		s, err := dataset.ReadIDX(filepath.Join(dir, part.in+"-images-idx3-ubyte.gz"), filepath.Join(dir, part.in+"-labels-idx1-ubyte.gz"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var idx []int
		taken := make([]int, 10)
		for _, i := range r.Perm(s.Len()) {
			if l := s.Labels[i]; taken[l] < part.perClass {
				taken[l]++
				idx = append(idx, i)
			}
		}
		sub := s.Subset(idx)
		if err := dataset.WriteIDX(filepath.Join("embedded", part.out+"-images-idx3-ubyte.gz"), filepath.Join("embedded", part.out+"-labels-idx1-ubyte.gz"), sub); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%s: %d images\n", part.out, sub.Len())
	}
}
