package modelfile_test

import (
	"bytes"
	"fmt"

	"github.com/scn2d/scn/internal/modelfile"
)

// A model file of one node written and read back: the header record, then
// the payload's arrays in order.
func Example() {
	h := &modelfile.Header{Kind: "2DSCN", Activation: "sigmoid", Rows: 2, Cols: 3, Outputs: 1, Nodes: 1}
	params, bias, beta := []float32{1, 2, 3, 4, 5}, []float32{-1}, []float64{0.5}
	var file bytes.Buffer
	n, err := modelfile.Write(&file, modelfile.GreyVersion, h, 6*4+8, func(b []byte) []byte {
		b = modelfile.AppendFloat32s(b, params)
		b = modelfile.AppendFloat32s(b, bias)
		return modelfile.AppendFloat64s(b, beta)
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("bytes:", n)

	var raw bytes.Buffer
	back, v, hlen, err := modelfile.ReadHeader(&file, &raw)
	if err != nil {
		panic(err)
	}
	payload, err := modelfile.ReadPayload(&file, &raw, hlen, 6*4+8)
	if err != nil {
		panic(err)
	}
	r := modelfile.NewPayloadReader(payload)
	gotBeta := make([]float64, 1)
	p, b := r.F32(5), r.F32(1)
	r.F64(gotBeta)
	fmt.Println("version:", v, back.Kind, back.Rows, "x", back.Cols)
	fmt.Println(p, b, gotBeta)
	// Output:
	// bytes: 316
	// version: 1 2DSCN 2 x 3
	// [1 2 3 4 5] [-1] [0.5]
}
