package statsfile_test

import (
	"bytes"
	"fmt"

	"github.com/scn2d/scn/internal/statsfile"
)

// Statistics of two nodes and one output written (version 1: no factor)
// and read back.
func Example() {
	h := statsfile.Header{Samples: 5, Outputs: 1, Nodes: 2}
	g, ht, tt := []float64{2, 1, 1, 3}, []float64{0.5, -1}, []float64{4}
	var file bytes.Buffer
	if _, err := statsfile.Write(&file, h, []byte("recipe"), g, ht, tt, nil); err != nil {
		panic(err)
	}
	c, err := statsfile.Read(&file, -1, nil, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Header.Samples, "images,", c.Header.Nodes, "nodes, recipe", string(c.Recipe))
	fmt.Println(c.G, c.HT, c.TT)
	// Output:
	// 5 images, 2 nodes, recipe recipe
	// [2 1 1 3] [0.5 -1] [4]
}
