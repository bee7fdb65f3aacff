package modelrec

import (
	"encoding/json"
	"testing"

	"github.com/scn2d/scn/internal/direct"
	"github.com/scn2d/scn/internal/kind"
	"github.com/scn2d/scn/internal/modelfile"
)

// FuzzHeader: any JSON header, of any version, is either refused with an
// error or describes a model of a payload size >= 0; never a
// panic.
func FuzzHeader(f *testing.F) {
	grey := record(kind.SCN2D, 4, 5, 0, 3, 2)
	deepRec := record(kind.RVFL2D, 3, 4, 0, 4, 2, 3, 2)
	withDirect := record(kind.RVFL, 4, 4, 0, 2, 3)
	withDirect.Direct = &direct.Link{Pool: 2}
	for _, r := range []*Model{grey, deepRec, withDirect} {
		h := r.Header()
		h.Config.DirectLink = r.Direct != nil
		b, err := json.Marshal(&h)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint32(Version(&h)), r.Kind.String())
	}
	f.Fuzz(func(t *testing.T, b []byte, v uint32, k string) {
		var h modelfile.Header
		if json.Unmarshal(b, &h) != nil {
			return
		}
		kd, err := kind.Parse(k)
		if err != nil {
			return
		}
		r, err := FromHeader(&h, kd, 0, perNode(kd, h.Rows, h.Cols, h.Channels), noAugment)
		if err != nil {
			return
		}
		if err := r.Extensions(&h, v, checks); err != nil {
			return
		}
		if size := r.PayloadSize(); size < 0 {
			t.Fatalf("payload of %d bytes accepted", size)
		}
		_ = r.LayerSizes()
	})
}
