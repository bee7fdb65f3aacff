package scn

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/modelfile"
)

func TestSaveLoadSamePredictions(t *testing.T) {
	p := blobProblem(t, 200)
	dir := t.TempDir()
	for _, k := range Kinds() {
		c := Paper(k)
		c.MaxNodes = 20
		c.Ridge = 0.001
		m := fitT(t, c, p)
		m.Meta = map[string]string{"source": "blobs"}
		m.Preprocessing = Preprocessing{Invert: "auto", ResizeRows: 10, ResizeCols: 12}
		path := filepath.Join(dir, k.String()+".scn")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		y1, _ := m.Predict(p.X)
		y2, _ := back.Predict(p.X)
		for i := range y1 {
			if y1[i] != y2[i] {
				t.Fatalf("%v: prediction %d changed after save/load: %v vs %v", k, i, y1[i], y2[i])
			}
		}
		if back.Kind != k || back.Nodes() != 20 || back.Config.Seed != c.Seed || back.Config.Ridge != c.Ridge ||
			back.Summary.Stop != m.Summary.Stop || back.Meta["source"] != "blobs" || back.Preprocessing != m.Preprocessing || len(back.Classes) != 3 {
			t.Errorf("%v: header not kept: %+v", k, back.Config)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp") {
				t.Errorf("temporary file %s left behind", e.Name())
			}
		}
	}
}

// TestMatrixModelFileIsSmall checks the model-size claim of the paper (E7)
// on real files: a 2D model holds
// L*(d1+d2+1+m) numbers, a 1D one L*(d1*d2+1+m).
func TestMatrixModelFileIsSmall(t *testing.T) {
	x, y, names := blobs(100, 28, 28, 3, 1)
	p, _ := Classification(x, y, names)
	size := map[Kind]int{}
	for _, k := range []Kind{SCN2D, SCN} {
		c := Paper(k)
		c.MaxNodes = 50
		m := fitT(t, c, p)
		var buf bytes.Buffer
		m.WriteTo(&buf)
		size[k] = buf.Len()
		hdr := int(binary.LittleEndian.Uint32(buf.Bytes()[12:]))
		per := 28 + 28
		if k.Input == Vector {
			per = 28 * 28
		}
		want := modelfile.PreambleSize + hdr + 50*(per*4+4+3*8) + 4
		if buf.Len() != want || m.ParamCount() != 50*(per+1+3) {
			t.Errorf("%v: file %d bytes, want %d; %d parameters", k, buf.Len(), want, m.ParamCount())
		}
	}
	if ratio := float64(size[SCN]) / float64(size[SCN2D]); ratio < 10 {
		t.Errorf("1D file only %.1f times the 2D one", ratio)
	}
}

func TestCorruptFilesAreRefused(t *testing.T) {
	p := blobProblem(t, 100)
	c := Paper(SCN2D)
	c.MaxNodes = 5
	var buf bytes.Buffer
	fitT(t, c, p).WriteTo(&buf)
	good := buf.Bytes()
	le := binary.LittleEndian
	mod := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := map[string][]byte{
		"empty":          {},
		"short preamble": good[:10],
		"wrong magic":    mod(func(b []byte) []byte { b[0] = 'X'; return b }),
		"future version": mod(func(b []byte) []byte { le.PutUint32(b[8:], 2); return b }),
		"huge header":    mod(func(b []byte) []byte { le.PutUint32(b[12:], 1<<31); return b }),
		"cut header":     good[:modelfile.PreambleSize+5],
		"cut weights":    good[:len(good)-50],
		"no checksum":    good[:len(good)-4],
		"trailing bytes": append(append([]byte(nil), good...), 0),
		"bit flip":       mod(func(b []byte) []byte { b[len(b)-20] ^= 0x10; return b }),
		"flipped crc":    mod(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }),
		"absurd nodes": mod(func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"nodes":5`), []byte(`"nodes":9999999999`), 1)
		}),
		"bad header json": mod(func(b []byte) []byte { b[modelfile.PreambleSize] = '['; return b }),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			m, err := Read(bytes.NewReader(data))
			if err == nil || m != nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error %v does not wrap ErrFormat", err)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.scn")); err == nil {
		t.Error("missing file loaded")
	}
}

func FuzzRead(f *testing.F) {
	p := blobProblem(f, 60)
	colour, _ := hueProblem(f, 40, 1) // version 2 files
	for _, k := range Kinds() {
		for _, q := range []Problem{p, colour} {
			c := Paper(k)
			c.MaxNodes = 3
			m, err := c.Fit(context.Background(), q, nil)
			if err != nil {
				f.Fatal(err)
			}
			var buf bytes.Buffer
			m.WriteTo(&buf)
			f.Add(buf.Bytes())
			f.Add(buf.Bytes()[:len(buf.Bytes())/2])
		}
	}
	// A deep model (Config.Layers): header field and trailing section.
	dc := Fast(SCN2D)
	dc.MaxNodes, dc.BlockSize, dc.BF16Gram, dc.Layers = 4, 2, false, []int{2, 2}
	if dm, err := dc.Fit(context.Background(), p, nil); err == nil {
		var buf bytes.Buffer
		dm.WriteTo(&buf)
		f.Add(buf.Bytes())
	} else {
		f.Fatal(err)
	}
	f.Add([]byte(modelfile.Magic))
	f.Add(legacyFile(f, `{"invert":"auto","mnist":true}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, infoErr := ReadInfo(bytes.NewReader(data))
		m, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if infoErr != nil || info.Nodes != m.Nodes() || info.FileBytes != int64(len(data)) || info.Preprocessing != m.Preprocessing || info.Channels != m.Channels {
			t.Fatalf("ReadInfo disagrees with Read: %v, %+v", infoErr, info)
		}
		var out bytes.Buffer
		if _, err := m.WriteTo(&out); err != nil {
			t.Fatalf("a model that was read cannot be written: %v", err)
		}
		// A file of the older layout (preprocessing in the metadata) is
		// written in today's; any other comes back byte for byte.
		if !bytes.Equal(out.Bytes(), data) && !bytes.Contains(data, []byte(`"preprocess"`)) {
			t.Fatal("read then write changed the bytes")
		}
	})
}
