package memest

import "testing"

// TestPredictByHand: a prediction's bytes, worked out by hand.
func TestPredictByHand(t *testing.T) {
	p := Predict{N: 1000, Nodes: 500, M: 10, Rows: 28, Cols: 28, Chans: 1, NodeChunk: 256, Batch: 128}
	// outputs 8*1000*10; a chunk of 256 nodes' outputs in float32 and
	// float64 for 128 images; the pass's outputs; the packed nodes.
	want := int64(8*1000*10 + 12*256*128 + 8*10*128 + 4*(256+32)*56)
	if got := p.Bytes(); got != want {
		t.Errorf("global nodes: %d, want %d", got, want)
	}
	p.Matrix, p.Chans = true, 3
	if got := p.Bytes(); got != want+4*256*128 {
		t.Errorf("matrix nodes of 3 planes: %d, want %d", got, want+4*256*128)
	}
	d := Predict{N: 10, Nodes: 600, Width: 300, M: 2, Rows: 1, Cols: 2, Chans: 1, Deep: true, NodeChunk: 256, Batch: 128}
	c := 600.0 + 100
	if got, want := d.Bytes(), int64(8*10*2+12*c*128+8*2*128+4*(c+32)*3); got != want {
		t.Errorf("deep: %d, want %d", got, want)
	}
}

// TestDeep: the first layer's estimate with the largest further layer's
// candidates and their input; the layers' sizes as the estimates see
// them.
func TestDeep(t *testing.T) {
	var calls [][3]int
	est := func(total, prev, k int) Memory {
		calls = append(calls, [3]int{total, prev, k})
		return Memory{Candidates: int64(1000 * k), Factor: int64(total)}
	}
	e := Deep(10, 100, []int{50, 20}, est)
	if want := [][3]int{{170, 0, 0}, {170, 100, 1}, {170, 50, 2}}; len(calls) != 3 || calls[0] != want[0] || calls[1] != want[1] || calls[2] != want[2] {
		t.Errorf("estimates asked %v, want %v", calls, want)
	}
	// Layer 1: 1000 + 4*10*100; layer 2: 2000 + 4*10*50.
	if e.Candidates != 5000 || e.Factor != 170 {
		t.Errorf("%+v", e)
	}
	if got := StreamKeep(100, 784, 10); got != 100*(4*784+80) {
		t.Errorf("StreamKeep %d", got)
	}
}
