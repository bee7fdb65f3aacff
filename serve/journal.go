package serve

// The journal of a growing model (scn serve --learn --grow): every image
// learnt, with its label or targets, so that a growth can sum the new
// nodes' products over them (docs/serving.md).
//
// A journal file is a header then records, appended in the order the
// images were learnt, one record a learning pass:
//
//	header (32 bytes, little-endian): "SCNJOURN", version (uint32, 1),
//	  rows, cols, channels, outputs (uint32 each: outputs 0 for a
//	  classification, whose records hold labels), CRC-32C of the 28
//	  bytes before it (uint32)
//	record: payload length (uint32), CRC-32C of the payload (uint32),
//	  payload: n (uint32, the images), then per image a label (uint16
//	  length, at most 1024, and its bytes) or outputs float64 targets,
//	  then n x rows x cols x channels float32 pixels
//
// Every size is bounded before anything is allocated. A crash while a
// record was appended leaves a tail that is not a whole record with its
// CRC: reading stops at the first record that is not, and the file is cut
// there (only the records a snapshot covers are needed, and they were
// synced before the snapshot was written). A file is never rewritten in
// place: a rollback starts a new journal file with a copy of the records
// its version covers (written atomically).

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"sync"

	"github.com/scn2d/scn/internal/atomicfile"
)

const (
	journalMagic   = "SCNJOURN"
	journalVersion = 1
	journalHeadLen = 32
	// journalMaxImages bounds the images of a record (a learning pass
	// takes at most LearnOptions.Batch images, or one request's batch).
	journalMaxImages = 1 << 20
	journalMaxLabel  = 1024
	journalMaxRecord = 1 << 30 // bytes of a record's payload
	journalMaxDim    = 1 << 24 // pixels of an image
	journalMaxOuts   = 1 << 16
)

var journalCRC = crc32.MakeTable(crc32.Castagnoli)

// journalShape is a journal's header: the images' shape and the targets
// an image (0: a label).
type journalShape struct {
	rows, cols, chans, outputs int
}

func (h journalShape) dim() int { return h.rows * h.cols * h.chans }

// journalRecord is one learning pass's images.
type journalRecord struct {
	n       int
	labels  []string  // classification
	targets []float64 // regression: n x outputs
	pix     []float32 // n x dim
}

func (h journalShape) encodeHeader() []byte {
	b := make([]byte, journalHeadLen)
	copy(b, journalMagic)
	le := binary.LittleEndian
	le.PutUint32(b[8:], journalVersion)
	le.PutUint32(b[12:], uint32(h.rows))
	le.PutUint32(b[16:], uint32(h.cols))
	le.PutUint32(b[20:], uint32(h.chans))
	le.PutUint32(b[24:], uint32(h.outputs))
	le.PutUint32(b[28:], crc32.Checksum(b[:28], journalCRC))
	return b
}

func decodeJournalHeader(b []byte) (journalShape, error) {
	le := binary.LittleEndian
	if len(b) < journalHeadLen || string(b[:8]) != journalMagic {
		return journalShape{}, errors.New("not a journal (no SCNJOURN header)")
	}
	if v := le.Uint32(b[8:]); v != journalVersion {
		return journalShape{}, fmt.Errorf("journal version %d, this server reads %d", v, journalVersion)
	}
	if crc32.Checksum(b[:28], journalCRC) != le.Uint32(b[28:]) {
		return journalShape{}, errors.New("journal header: CRC mismatch")
	}
	h := journalShape{rows: int(le.Uint32(b[12:])), cols: int(le.Uint32(b[16:])), chans: int(le.Uint32(b[20:])), outputs: int(le.Uint32(b[24:]))}
	if h.rows < 1 || h.cols < 1 || h.chans < 1 || h.rows > journalMaxDim || h.cols > journalMaxDim || h.chans > 4 ||
		int64(h.rows)*int64(h.cols)*int64(h.chans) > journalMaxDim || h.outputs > journalMaxOuts {
		return journalShape{}, fmt.Errorf("journal header: images of %d x %d x %d, %d outputs", h.rows, h.cols, h.chans, h.outputs)
	}
	return h, nil
}

// encode returns the record's bytes (length, CRC, payload).
func (h journalShape) encode(r *journalRecord) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	b.Write(make([]byte, 12))
	for i := 0; i < r.n && h.outputs == 0; i++ {
		b.Write(le.AppendUint16(nil, uint16(len(r.labels[i]))))
		b.WriteString(r.labels[i])
	}
	buf := b.Bytes()
	for _, v := range r.targets {
		buf = le.AppendUint64(buf, math.Float64bits(v))
	}
	for _, v := range r.pix {
		buf = le.AppendUint32(buf, math.Float32bits(v))
	}
	le.PutUint32(buf[8:], uint32(r.n))
	le.PutUint32(buf[0:], uint32(len(buf)-8))
	le.PutUint32(buf[4:], crc32.Checksum(buf[8:], journalCRC))
	return buf
}

// check reports why r cannot be a record of h.
func (h journalShape) check(r *journalRecord) error {
	switch {
	case r.n < 1 || r.n > journalMaxImages:
		return fmt.Errorf("journal: a record of %d images", r.n)
	case len(r.pix) != r.n*h.dim():
		return fmt.Errorf("journal: %d pixels for %d images of %d", len(r.pix), r.n, h.dim())
	case h.outputs == 0 && len(r.labels) != r.n:
		return fmt.Errorf("journal: %d labels for %d images", len(r.labels), r.n)
	case h.outputs > 0 && len(r.targets) != r.n*h.outputs:
		return fmt.Errorf("journal: %d targets for %d images of %d outputs", len(r.targets), r.n, h.outputs)
	}
	for _, l := range r.labels {
		if len(l) == 0 || len(l) > journalMaxLabel {
			return fmt.Errorf("journal: a label of %d bytes", len(l))
		}
	}
	return nil
}

// errTorn is a record that is not whole (length, CRC or contents): the
// journal ends before it.
var errTorn = errors.New("not a whole record")

// readRecord reads one record of h from r, checking its CRC and sizes;
// io.EOF at the end of the file, errTorn (wrapped) for a record that is
// not whole. It returns the record's bytes on the file.
func (h journalShape) readRecord(r *bufio.Reader, keep bool) (*journalRecord, int64, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		return nil, 0, fmt.Errorf("%w: %v", errTorn, err)
	}
	le := binary.LittleEndian
	size, sum := le.Uint32(pre[:]), le.Uint32(pre[4:])
	per := int64(h.dim()) * 4
	if h.outputs > 0 {
		per += int64(h.outputs) * 8
	}
	if size < 4+uint32(per) || size > journalMaxRecord {
		return nil, 0, fmt.Errorf("%w: a payload of %d bytes", errTorn, size)
	}
	// Read as it comes, not allocated from the length: a length a
	// damaged or torn record states costs only the bytes there are.
	payload, err := io.ReadAll(io.LimitReader(r, int64(size)))
	if err != nil || len(payload) != int(size) {
		return nil, 0, fmt.Errorf("%w: %d of %d bytes", errTorn, len(payload), size)
	}
	if crc32.Checksum(payload, journalCRC) != sum {
		return nil, 0, fmt.Errorf("%w: CRC mismatch", errTorn)
	}
	n := int(le.Uint32(payload))
	if n < 1 || n > journalMaxImages || int64(n)*per > int64(size) {
		return nil, 0, fmt.Errorf("%w: %d images in %d bytes", errTorn, n, size)
	}
	rec := &journalRecord{n: n}
	p := payload[4:]
	if h.outputs == 0 {
		if keep {
			rec.labels = make([]string, n)
		}
		for i := range n {
			if len(p) < 2 {
				return nil, 0, fmt.Errorf("%w: labels cut", errTorn)
			}
			k := int(le.Uint16(p))
			if k == 0 || k > journalMaxLabel || len(p) < 2+k {
				return nil, 0, fmt.Errorf("%w: a label of %d bytes", errTorn, k)
			}
			if keep {
				rec.labels[i] = string(p[2 : 2+k])
			}
			p = p[2+k:]
		}
	}
	if int64(len(p)) != int64(n)*per {
		return nil, 0, fmt.Errorf("%w: %d bytes of targets and pixels for %d images", errTorn, len(p), n)
	}
	if keep {
		if h.outputs > 0 {
			rec.targets = make([]float64, n*h.outputs)
			for i := range rec.targets {
				rec.targets[i] = math.Float64frombits(le.Uint64(p[8*i:]))
			}
			p = p[8*len(rec.targets):]
		}
		rec.pix = make([]float32, n*h.dim())
		for i := range rec.pix {
			rec.pix[i] = math.Float32frombits(le.Uint32(p[4*i:]))
		}
	}
	return rec, 8 + int64(size), nil
}

// scanJournal reads a journal's header and its whole records, calling f
// (if not nil) with each record from record from on; it stops at the end
// or at the first record that is not whole. It returns the header and
// each whole record's images and end (its last byte's offset + 1). An
// error is a header that does not read, or f's.
func scanJournal(rd io.Reader, from int, f func(i int, r *journalRecord) error) (journalShape, []int, []int64, error) {
	r := bufio.NewReaderSize(rd, 1<<16)
	head := make([]byte, journalHeadLen)
	if _, err := io.ReadFull(r, head); err != nil {
		return journalShape{}, nil, nil, fmt.Errorf("journal header: %w", err)
	}
	h, err := decodeJournalHeader(head)
	if err != nil {
		return journalShape{}, nil, nil, err
	}
	var (
		counts []int
		ends   []int64
	)
	end := int64(journalHeadLen)
	for i := 0; ; i++ {
		rec, size, err := h.readRecord(r, f != nil && i >= from)
		if err != nil {
			break // the end, or a tail that is not whole
		}
		if f != nil && i >= from {
			if err := f(i, rec); err != nil {
				return h, counts, ends, err
			}
		}
		end += size
		counts, ends = append(counts, rec.n), append(ends, end)
	}
	return h, counts, ends, nil
}

// journal is an open journal file, appended to by the learner (l.mu
// held).
type journal struct {
	path   string
	f      *os.File
	h      journalShape
	counts []int // images of each record
	images int
	// starts holds where each record starts, for read (under idx: read
	// runs without the learner's lock, append under it).
	starts []int64
	idx    sync.Mutex
	size   int64
	// lastStart is where the last record appended starts (undo).
	lastStart int64
}

// openJournal opens the journal at path, created (header only) if
// missing, keeping its first keep records (an error if it has fewer
// whole ones) and cutting the rest.
func openJournal(path string, h journalShape, keep int) (*journal, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if keep > 0 {
			return nil, fmt.Errorf("journal %s: missing, and a snapshot covers %d of its records", path, keep)
		}
		if err := atomicfile.Write(path, func(w io.Writer) error {
			_, err := w.Write(h.encodeHeader())
			return err
		}); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	fh, counts, ends, err := scanJournal(f, 0, nil)
	if err == nil && fh != h {
		err = fmt.Errorf("images of %d x %d x %d and %d outputs; the model's are %d x %d x %d and %d", fh.rows, fh.cols, fh.chans, fh.outputs, h.rows, h.cols, h.chans, h.outputs)
	}
	if err == nil && len(counts) < keep {
		err = fmt.Errorf("%d whole records, and the snapshot covers %d (the journal was cut or damaged)", len(counts), keep)
	}
	if err == nil {
		j := &journal{path: path, f: f, h: h, counts: counts[:keep:keep], size: journalHeadLen}
		if keep > 0 {
			j.size = ends[keep-1]
		}
		j.starts = make([]int64, keep)
		for i := range keep {
			j.starts[i] = journalHeadLen
			if i > 0 {
				j.starts[i] = ends[i-1]
			}
		}
		for _, c := range j.counts {
			j.images += c
		}
		if err = f.Truncate(j.size); err == nil {
			if _, err = f.Seek(j.size, io.SeekStart); err == nil {
				if err = f.Sync(); err == nil {
					return j, nil
				}
			}
		}
	}
	f.Close()
	return nil, fmt.Errorf("journal %s: %w", path, err)
}

// append appends a record; on an error the file is cut back to the
// records before it.
func (j *journal) append(r *journalRecord) error {
	if err := j.h.check(r); err != nil {
		return err
	}
	b := j.h.encode(r)
	if _, err := j.f.Write(b); err != nil {
		j.f.Truncate(j.size)
		j.f.Seek(j.size, io.SeekStart)
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	j.lastStart = j.size
	j.idx.Lock()
	j.starts = append(j.starts, j.size)
	j.idx.Unlock()
	j.size += int64(len(b))
	j.counts = append(j.counts, r.n)
	j.images += r.n
	return nil
}

// undo removes the last record appended.
func (j *journal) undo() error {
	k := len(j.counts) - 1
	if k < 0 || j.lastStart == 0 {
		return nil
	}
	j.size = j.lastStart
	j.images -= j.counts[k]
	j.counts = j.counts[:k]
	j.idx.Lock()
	j.starts = j.starts[:k]
	j.idx.Unlock()
	j.lastStart = 0 // one undo a record
	if err := j.f.Truncate(j.size); err != nil {
		return err
	}
	_, err := j.f.Seek(j.size, io.SeekStart)
	return err
}

// records returns the whole records appended.
func (j *journal) records() int { return len(j.counts) }

// imagesTo returns the images of the first k records.
func (j *journal) imagesTo(k int) int {
	n := 0
	for _, c := range j.counts[:k] {
		n += c
	}
	return n
}

// read calls f with records from ... to-1, read from the file (records
// appended meanwhile are not read).
func (j *journal) read(from, to int, f func(r *journalRecord) error) error {
	if from >= to {
		return nil
	}
	j.idx.Lock()
	n := len(j.starts)
	var at int64
	if from >= 0 && from < n {
		at = j.starts[from]
	}
	j.idx.Unlock()
	if from < 0 || to > n {
		return fmt.Errorf("journal %s: records %d to %d of %d", j.path, from, to, n)
	}
	rd, err := os.Open(j.path)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer rd.Close()
	if _, err := rd.Seek(at, io.SeekStart); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	br := bufio.NewReaderSize(rd, 1<<16)
	for i := from; i < to; i++ {
		r, _, err := j.h.readRecord(br, true)
		if err != nil {
			return fmt.Errorf("journal %s: record %d does not read: %w", j.path, i, err)
		}
		if err := f(r); err != nil {
			return err
		}
	}
	return nil
}

// sync makes the records appended durable.
func (j *journal) sync() error { return j.f.Sync() }

func (j *journal) close() error { return j.f.Close() }

// copyJournal writes a new journal file dst (atomically) with the first
// keep records of the journal src.
func copyJournal(src, dst string, keep int) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer in.Close()
	_, counts, ends, err := scanJournal(in, 0, nil)
	if err != nil {
		return fmt.Errorf("journal %s: %w", src, err)
	}
	if len(counts) < keep {
		return fmt.Errorf("journal %s: %d whole records, want %d", src, len(counts), keep)
	}
	size := int64(journalHeadLen)
	if keep > 0 {
		size = ends[keep-1]
	}
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return atomicfile.Write(dst, func(w io.Writer) error {
		_, err := io.CopyN(w, in, size)
		return err
	})
}
