package serve

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func journalRecords(h journalShape) []*journalRecord {
	var out []*journalRecord
	for n := 1; n <= 4; n++ {
		r := &journalRecord{n: n, pix: make([]float32, n*h.dim())}
		for i := range r.pix {
			r.pix[i] = float32(n*100+i) / 7
		}
		for i := range n {
			if h.outputs == 0 {
				r.labels = append(r.labels, string(rune('a'+i))+"x")
			} else {
				for q := range h.outputs {
					r.targets = append(r.targets, float64(i*q)-0.5)
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// TestJournal: records read back as written, for labels and targets; a
// torn tail and a damaged record end the journal there, and opening it
// cuts it to the records kept; a header of another shape, too few records
// and a missing file a snapshot needs are refused; a copy keeps a prefix.
func TestJournal(t *testing.T) {
	for _, h := range []journalShape{{3, 2, 1, 0}, {2, 2, 3, 2}} {
		dir := t.TempDir()
		path := filepath.Join(dir, "j.scnj")
		j, err := openJournal(path, h, 0)
		if err != nil {
			t.Fatal(err)
		}
		recs := journalRecords(h)
		for _, r := range recs {
			if err := j.append(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.append(&journalRecord{n: 1, pix: make([]float32, 1)}); err == nil {
			t.Fatal("a record of the wrong size appended")
		}
		if j.records() != 4 || j.images != 10 || j.imagesTo(2) != 3 {
			t.Fatalf("records %d images %d", j.records(), j.images)
		}
		var got []*journalRecord
		if err := j.read(1, 3, func(r *journalRecord) error { got = append(got, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].n != 2 || !slices.Equal(got[1].pix, recs[2].pix) || !slices.Equal(got[1].labels, recs[2].labels) || !slices.Equal(got[1].targets, recs[2].targets) {
			t.Fatalf("read back %+v", got)
		}
		if err := j.read(3, 5, func(*journalRecord) error { return nil }); err == nil {
			t.Fatal("a record beyond the end read")
		}
		j.close()
		full, _ := os.ReadFile(path)
		// A torn tail: every cut inside the last record ends the
		// journal at 3 records.
		last := len(h.encode(recs[3]))
		for _, cut := range []int{1, 7, last - 1} {
			os.WriteFile(path, full[:len(full)-cut], 0o644)
			j, err := openJournal(path, h, 3)
			if err != nil {
				t.Fatalf("cut %d: %v", cut, err)
			}
			if j.records() != 3 || j.images != 6 {
				t.Fatalf("cut %d: %d records", cut, j.records())
			}
			j.close()
			if st, _ := os.Stat(path); st.Size() != int64(len(full)-last) {
				t.Fatalf("cut %d: not cut to the whole records: %d bytes", cut, st.Size())
			}
		}
		// A damaged byte in record 1: records 1 on are not read; a
		// snapshot that covers 2 is refused, one of 1 is kept.
		bad := slices.Clone(full)
		bad[journalHeadLen+len(h.encode(recs[0]))+20] ^= 1
		os.WriteFile(path, bad, 0o644)
		if _, err := openJournal(path, h, 2); err == nil {
			t.Fatal("a damaged journal gave 2 records")
		}
		j, err = openJournal(path, h, 1)
		if err != nil || j.records() != 1 {
			t.Fatalf("%v", err)
		}
		j.close()
		other := h
		other.rows++
		os.WriteFile(path, full, 0o644)
		if _, err := openJournal(path, other, 0); err == nil {
			t.Fatal("a journal of another shape opened")
		}
		// Keeping fewer records cuts the rest.
		if err := copyJournal(path, path+".copy", 2); err != nil {
			t.Fatal(err)
		}
		j, err = openJournal(path, h, 2)
		if err != nil || j.records() != 2 {
			t.Fatalf("%v", err)
		}
		j.close()
		a, _ := os.ReadFile(path)
		b, _ := os.ReadFile(path + ".copy")
		if !bytes.Equal(a, b) || !bytes.Equal(a, full[:len(a)]) {
			t.Fatal("the copy of 2 records is not the file cut to 2")
		}
		if _, err := openJournal(filepath.Join(dir, "none"), h, 1); err == nil {
			t.Fatal("a missing journal gave a record")
		}
		os.WriteFile(path, []byte("SCNJOURN garbage"), 0o644)
		if _, err := openJournal(path, h, 0); err == nil {
			t.Fatal("a bad header opened")
		}
	}
}

// FuzzJournal: any bytes read as a journal give an error or whole
// records, each of which encodes back to its bytes; never a panic.
func FuzzJournal(f *testing.F) {
	for _, h := range []journalShape{{3, 2, 1, 0}, {2, 2, 3, 2}} {
		b := h.encodeHeader()
		for _, r := range journalRecords(h) {
			b = append(b, h.encode(r)...)
		}
		f.Add(b)
		f.Add(b[:len(b)-5])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs []*journalRecord
		h, counts, ends, err := scanJournal(bytes.NewReader(data), 0, func(_ int, r *journalRecord) error {
			recs = append(recs, r)
			return nil
		})
		if err != nil {
			return
		}
		if len(counts) != len(recs) || len(ends) != len(recs) {
			t.Fatalf("%d counts, %d records", len(counts), len(recs))
		}
		off := int64(journalHeadLen)
		for i, r := range recs {
			if err := h.check(r); err != nil {
				t.Fatalf("record %d: %v", i, err)
			}
			b := h.encode(r)
			if !bytes.Equal(b, data[off:ends[i]]) {
				t.Fatalf("record %d does not encode back to its bytes", i)
			}
			off = ends[i]
		}
	})
}
