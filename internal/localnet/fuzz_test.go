package localnet

import (
	"encoding/json"
	"testing"

	"github.com/scn2d/scn/internal/modelfile"
	"github.com/scn2d/scn/internal/node"
)

// FuzzLayerOf: any header field read with any image shape is refused with
// an error or gives a layer whose payload decodes and checks without a
// panic.
func FuzzLayerOf(f *testing.F) {
	seed := FileField(&Layer{Geometry: *Default(), Banks: []Bank{{Size: 5, Bias: make([]float32, 2)}}})
	js, _ := json.Marshal(seed)
	f.Add(js, 12, 12, 1, 36, true)
	two := Default()
	two.Second = DefaultSecond(2)
	js2, _ := json.Marshal(FileField(&Layer{Geometry: *two, Banks: []Bank{{Size: 5, Bias: make([]float32, 256)}}, Second: &Bank{Size: 3, Bias: make([]float32, 2)}}))
	f.Add(js2, 20, 20, 3, 256*18+36, false)
	f.Fuzz(func(t *testing.T, js []byte, rows, cols, chans, nodes int, matrix bool) {
		if rows < 1 || cols < 1 || rows > 64 || cols > 64 || chans < 0 || chans > 4 {
			return
		}
		var fl modelfile.Local
		if json.Unmarshal(js, &fl) != nil {
			return
		}
		g, err := GeometryOf(&fl, rows, cols, chans)
		if err != nil {
			return
		}
		ll, err := LayerOf(&fl, g, nodes)
		if err != nil {
			return
		}
		nt := Net{Maps: Maps{Matrix: matrix, Act: node.Tanh}, Layer: ll, Rows: rows, Cols: cols, Chans: max(chans, 1)}
		size := nt.Payload(1)
		if size > 1<<22 {
			return
		}
		b := make([]byte, size)
		nt.DecodePayload(b, 1)
		_ = nt.Check()
	})
}
