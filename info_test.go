package scn

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/scn2d/scn/internal/modelfile"
)

// legacyFile returns a model file written the way files were before
// Preprocessing had a header field: the record as JSON text under the
// metadata key "preprocess" (raw; "" leaves the key out).
func legacyFile(t testing.TB, raw string) []byte {
	t.Helper()
	c := Paper(SCN2D)
	c.MaxNodes = 3
	m := fitT(t, c, blobProblem(t, 60))
	m.Meta = map[string]string{"source": "blobs", "inverted_images": "0 of 60"}
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if raw == "" {
		return buf.Bytes()
	}
	return rewriteHeader(t, buf.Bytes(), func(h *modelfile.Header) { h.Meta[legacyPreprocessKey] = raw })
}

// rewriteHeader returns file with its header changed by f, the header
// length and the checksum made right again.
func rewriteHeader(t testing.TB, file []byte, f func(h *modelfile.Header)) []byte {
	t.Helper()
	le := binary.LittleEndian
	hlen := int(le.Uint32(file[12:]))
	var h modelfile.Header
	if err := json.Unmarshal(file[modelfile.PreambleSize:modelfile.PreambleSize+hlen], &h); err != nil {
		t.Fatal(err)
	}
	f(&h)
	hdr, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(nil), file[:12]...)
	out = le.AppendUint32(out, uint32(len(hdr)))
	out = append(out, hdr...)
	out = append(out, file[modelfile.PreambleSize+hlen:len(file)-4]...)
	return le.AppendUint32(out, crc32.Checksum(out, modelfile.Castagnoli))
}

func TestLegacyPreprocessingRecord(t *testing.T) {
	data := legacyFile(t, `{"invert":"auto","resize_rows":20,"resize_cols":20,"mnist":true}`)
	m, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	want := PreprocessRecord{Invert: "auto", ResizeRows: 20, ResizeCols: 20, MNIST: true}
	if m.Preprocessing != want {
		t.Errorf("preprocessing %+v, want %+v", m.Preprocessing, want)
	}
	if _, ok := m.Meta[legacyPreprocessKey]; ok || m.Meta["source"] != "blobs" || len(m.Meta) != 2 {
		t.Errorf("metadata %v: want the record moved out and the rest kept", m.Meta)
	}
	info, err := ReadInfo(bytes.NewReader(data))
	if err != nil || info.Preprocessing != want || !reflect.DeepEqual(info.Meta, m.Meta) {
		t.Errorf("ReadInfo: %v, %+v", err, info)
	}
	// Written again, the record is in its own field and the file reads
	// back the same.
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte(`"preprocess"`)) || !bytes.Contains(buf.Bytes(), []byte(`"preprocessing":{"invert":"auto"`)) {
		t.Errorf("rewritten header: %s", buf.Bytes()[modelfile.PreambleSize:modelfile.PreambleSize+binary.LittleEndian.Uint32(buf.Bytes()[12:])])
	}
	back, err := Read(&buf)
	if err != nil || back.Preprocessing != want {
		t.Errorf("round trip: %v, %+v", err, back)
	}
	// Only the record's key is taken: a file without it has no
	// preprocessing.
	plain, err := Read(bytes.NewReader(legacyFile(t, "")))
	if err != nil || plain.Preprocessing != (PreprocessRecord{}) || len(plain.Meta) != 2 {
		t.Errorf("file without a record: %v, %+v", err, plain)
	}
}

func TestBadPreprocessingRecordsAreRefused(t *testing.T) {
	for name, data := range map[string][]byte{
		"legacy not JSON":      legacyFile(t, `{"scale":`),
		"legacy unknown field": legacyFile(t, `{"scale":255}`),
		"legacy bad invert":    legacyFile(t, `{"invert":"sometimes"}`),
		"half a resize": rewriteHeader(t, legacyFile(t, ""), func(h *modelfile.Header) {
			h.Preprocessing = modelfile.Preprocessing{ResizeRows: 28}
		}),
		"recorded twice": rewriteHeader(t, legacyFile(t, `{"mnist":true}`), func(h *modelfile.Header) {
			h.Preprocessing = modelfile.Preprocessing{MNIST: true}
		}),
	} {
		if _, err := Read(bytes.NewReader(data)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Read gave %v, want ErrFormat", name, err)
		}
		if _, err := ReadInfo(bytes.NewReader(data)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: ReadInfo gave %v, want ErrFormat", name, err)
		}
	}
	c := Paper(RVFL)
	c.MaxNodes = 2
	m := fitT(t, c, blobProblem(t, 30))
	m.Meta = map[string]string{legacyPreprocessKey: `{"mnist":true}`}
	if _, err := m.WriteTo(new(bytes.Buffer)); err == nil {
		t.Error("a model with the reserved metadata key was written")
	}
	m.Meta = nil
	m.Preprocessing.Invert = "maybe"
	if _, err := m.WriteTo(new(bytes.Buffer)); err == nil {
		t.Error("a model with invalid preprocessing was written")
	}
}

func TestReadInfo(t *testing.T) {
	p := blobProblem(t, 80)
	dir := t.TempDir()
	for _, k := range Kinds() {
		c := Paper(k)
		c.MaxNodes = 7
		m := fitT(t, c, p)
		m.Preprocessing = Preprocessing{MNIST: true}
		path := filepath.Join(dir, k.String()+".scn")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		in, err := LoadInfo(path)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(path)
		file, _ := os.ReadFile(path)
		if in.Kind != k || in.Activation != m.Activation || in.Rows != m.Rows || in.Cols != m.Cols || in.M != m.M ||
			in.Nodes != m.Nodes() || !reflect.DeepEqual(in.Classes, m.Classes) || in.Preprocessing != m.Preprocessing ||
			in.Config.Seed != m.Config.Seed || in.Summary.Stop != m.Summary.Stop || in.Summary.TrainRMSE != m.Summary.TrainRMSE {
			t.Errorf("%v: info %+v does not describe the model", k, in)
		}
		if in.FileBytes != st.Size() || in.HeaderBytes != int(binary.LittleEndian.Uint32(file[12:])) {
			t.Errorf("%v: info claims %d bytes with a header of %d", k, in.FileBytes, in.HeaderBytes)
		}
		if in.ParamCount() != m.ParamCount() || in.ParamsPerNode() != m.ParamsPerNode() || !in.IsClassifier() {
			t.Errorf("%v: info counts %d parameters, the model %d", k, in.ParamCount(), m.ParamCount())
		}
		// ReadInfo stops after the header: the weights may be missing.
		if _, err := ReadInfo(bytes.NewReader(file[:modelfile.PreambleSize+in.HeaderBytes])); err != nil {
			t.Errorf("%v: ReadInfo wants more than the header: %v", k, err)
		}
		// LoadInfo checks the file's size against the header.
		for name, bad := range map[string][]byte{"truncated": file[:len(file)-1], "trailing": append(file, 0)} {
			bp := filepath.Join(dir, name)
			os.WriteFile(bp, bad, 0o644)
			if _, err := LoadInfo(bp); !errors.Is(err, ErrFormat) {
				t.Errorf("%v: %s file: %v, want ErrFormat", k, name, err)
			}
		}
	}
	if _, err := LoadInfo(filepath.Join(dir, "missing.scn")); err == nil {
		t.Error("missing file read")
	}
	if _, err := ReadInfo(bytes.NewReader([]byte("2DSCNMD"))); !errors.Is(err, ErrFormat) {
		t.Errorf("short preamble: %v", err)
	}
}
