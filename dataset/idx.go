package dataset

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/scn2d/scn/internal/atomicfile"
)

// IDX element types.
const (
	idxUbyte   = 0x08
	idxInt32   = 0x0C
	idxFloat32 = 0x0D
	idxFloat64 = 0x0E
)

// maxIDXBytes bounds what an IDX header may claim (4 GiB).
const maxIDXBytes = 1 << 32

// idx is one decoded IDX file.
type idx struct {
	kind byte
	dims []int
	data []byte // big-endian elements
}

// openMaybeGzip returns a reader of r's content, gunzipped when it starts
// with the gzip magic bytes (detected by content, not by name).
func openMaybeGzip(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	magic, err := br.Peek(2)
	if err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		return gzip.NewReader(br)
	}
	return br, nil
}

// readIDX decodes an IDX stream. The header's claim is bounded before
// anything is allocated for it, and memory then grows with the bytes
// actually read, so a header claiming more than the stream holds fails
// without a large allocation. Data after the claimed elements is refused
// (it means the header is wrong), and a gzip stream is read to its end, so
// that its checksum is verified.
func readIDX(r io.Reader) (*idx, error) { return readIDXHashed(r, nil) }

// readIDXHashed is readIDX that also writes the (decompressed) IDX bytes
// to h, unless h is nil.
func readIDXHashed(r io.Reader, h io.Writer) (*idx, error) {
	r, err := openMaybeGzip(r)
	if err != nil {
		return nil, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
	}
	if h != nil {
		r = io.TeeReader(r, h)
	}
	kind, dims, total, err := readIDXHead(r)
	if err != nil {
		return nil, err
	}
	// What the data become: float32 pixels for images, int or float64
	// values otherwise; with the raw bytes, checked before reading them.
	out := int64(8)
	if kind == idxUbyte && len(dims) >= 2 {
		out = 4
	}
	if err := checkMemory(total+total/idxSize[kind]*out, "the IDX data its header claims ("+dimsText(dims)+")"); err != nil {
		return nil, err
	}
	data, err := readBounded(r, total)
	if err != nil {
		return nil, fmt.Errorf("%w: IDX truncated: header claims %d bytes of data, file holds %d", ErrFormat, total, len(data))
	}
	var one [1]byte
	switch _, err := io.ReadFull(r, one[:]); err {
	case io.EOF:
	case nil:
		return nil, fmt.Errorf("%w: IDX holds more data than its header claims (%d bytes)", ErrFormat, total)
	default:
		return nil, fmt.Errorf("%w: IDX: %v", ErrFormat, err)
	}
	return &idx{kind: kind, dims: dims, data: data}, nil
}

// idxSize gives the bytes of an element of each IDX type.
var idxSize = map[byte]int64{idxUbyte: 1, idxInt32: 4, idxFloat32: 4, idxFloat64: 8}

// readIDXHead reads and checks an IDX header from r: the element type, the
// dimensions (none zero) and the bytes of data they claim, at most
// maxIDXBytes.
func readIDXHead(r io.Reader) (kind byte, dims []int, total int64, err error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, 0, fmt.Errorf("%w: truncated IDX header", ErrFormat)
	}
	if hdr[0] != 0 || hdr[1] != 0 {
		return 0, nil, 0, fmt.Errorf("%w: wrong IDX magic %x", ErrFormat, hdr)
	}
	size := idxSize[hdr[2]]
	if size == 0 {
		return 0, nil, 0, fmt.Errorf("%w: unsupported IDX element type 0x%02x", ErrFormat, hdr[2])
	}
	if hdr[3] < 1 || hdr[3] > 4 {
		return 0, nil, 0, fmt.Errorf("%w: IDX with %d dimensions", ErrFormat, hdr[3])
	}
	dims = make([]int, hdr[3])
	total = size
	for i := range dims {
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return 0, nil, 0, fmt.Errorf("%w: truncated IDX header", ErrFormat)
		}
		dims[i] = int(binary.BigEndian.Uint32(b[:]))
		if dims[i] == 0 {
			return 0, nil, 0, fmt.Errorf("%w: IDX dimension %d is zero", ErrFormat, i)
		}
		if int64(dims[i]) > maxIDXBytes/total { // checked before multiplying: no overflow
			return 0, nil, 0, fmt.Errorf("%w: IDX header claims more than %d bytes", ErrFormat, int64(maxIDXBytes))
		}
		total *= int64(dims[i])
		if total > maxIDXBytes {
			return 0, nil, 0, fmt.Errorf("%w: IDX header claims more than %d bytes", ErrFormat, int64(maxIDXBytes))
		}
	}
	return hdr[2], dims, total, nil
}

// readBounded reads exactly n bytes from r into a slice that grows with
// what r delivers (doubling, never beyond n), so that a header claiming
// more than the stream holds costs no more than the stream.
func readBounded(r io.Reader, n int64) ([]byte, error) {
	buf := make([]byte, 0, min(n, 1<<20))
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			bigger := make([]byte, len(buf), min(n, 2*int64(cap(buf))))
			copy(bigger, buf)
			buf = bigger
		}
		k, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err == io.EOF && int64(len(buf)) < n {
			return buf, io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return buf, err
		}
	}
	return buf, nil
}

// dimsText renders IDX dimensions: "1000 x 1000 x 1000".
func dimsText(dims []int) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = fmt.Sprint(d)
	}
	return strings.Join(parts, " x ")
}

// readIDXFile reads and decodes an IDX file.
func readIDXFile(path string) (*idx, error) {
	x, _, err := readIDXFileHashed(path)
	return x, err
}

// readIDXFileHashed reads and decodes an IDX file and returns the SHA-256
// of its decompressed bytes, in hex.
func readIDXFileHashed(path string) (*idx, string, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	h := sha256.New()
	x, err := readIDXHashed(f, h)
	if err != nil {
		return nil, "", fmt.Errorf("dataset: %s: %w", path, err)
	}
	return x, hex.EncodeToString(h.Sum(nil)), nil
}

// ReadIDX reads an IDX image file (ubyte, N x rows x cols, magic 0x803;
// or N x C x rows x cols, magic 0x804, C planes per image, as WriteIDX and
// Derived.Write write colour sets) and, unless labelsPath is empty, its IDX label file (ubyte, N, magic
// 0x801). Files may be gzip-compressed. Pixels are scaled to [0, 1]; the
// classes are "0", "1", ... up to the largest label.
func ReadIDX(imagesPath, labelsPath string) (*Set, error) {
	img, err := readIDXFile(imagesPath)
	if err != nil {
		return nil, err
	}
	var lab *idx
	if labelsPath != "" {
		if lab, err = readIDXFile(labelsPath); err != nil {
			return nil, err
		}
	}
	s, err := idxSet(img, lab)
	if err != nil {
		if lab != nil {
			return nil, fmt.Errorf("dataset: %s with %s: %w", imagesPath, labelsPath, err)
		}
		return nil, fmt.Errorf("dataset: %s: %w", imagesPath, err)
	}
	s.Source = imagesPath
	return s, nil
}

// ReadIDXFrom is ReadIDX on readers; labels may be nil. name is used in
// errors and as the set's source.
func ReadIDXFrom(images, labels io.Reader, name string) (*Set, error) {
	img, err := readIDX(images)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", name, err)
	}
	var lab *idx
	if labels != nil {
		if lab, err = readIDX(labels); err != nil {
			return nil, fmt.Errorf("dataset: %s labels: %w", name, err)
		}
	}
	s, err := idxSet(img, lab)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", name, err)
	}
	s.Source = name
	return s, nil
}

// idxSet builds a set from decoded image and label files.
func idxSet(img, lab *idx) (*Set, error) {
	if img.kind != idxUbyte || len(img.dims) != 3 && len(img.dims) != 4 {
		return nil, fmt.Errorf("%w: images must be unsigned bytes of N x rows x cols (or N x C x rows x cols), got type 0x%02x with %d dimensions", ErrFormat, img.kind, len(img.dims))
	}
	d := img.dims[len(img.dims)-2:]
	s := &Set{Rows: d[0], Cols: d[1], Pix: make([]float32, len(img.data))}
	if len(img.dims) == 4 {
		if c := img.dims[1]; c > MaxChannels {
			return nil, fmt.Errorf("%w: images of %d channels (at most %d)", ErrFormat, c, MaxChannels)
		} else if c > 1 {
			s.Channels = c
		}
	}
	for i, v := range img.data {
		s.Pix[i] = float32(v) / 255
	}
	if lab == nil {
		return s, nil
	}
	if lab.kind != idxUbyte || len(lab.dims) != 1 {
		return nil, fmt.Errorf("%w: labels must be unsigned bytes of one dimension", ErrFormat)
	}
	if lab.dims[0] != img.dims[0] {
		return nil, fmt.Errorf("%w: the label file holds %d labels, the image file %d images", ErrFormat, lab.dims[0], img.dims[0])
	}
	s.Labels = make([]int, len(lab.data))
	most := 0
	for i, v := range lab.data {
		s.Labels[i] = int(v)
		most = max(most, int(v))
	}
	s.Classes = digitClasses(max(most+1, 2))
	return s, nil
}

// ReadIDXTargets reads an IDX file of real targets (float32 0x0D or float64
// 0x0E; N values, or N x dim) and returns them with their dimension.
func ReadIDXTargets(path string) ([]float64, int, error) {
	x, err := readIDXFile(path)
	if err != nil {
		return nil, 0, err
	}
	return idxTargets(x, path)
}

// idxTargets decodes the real targets of a decoded IDX file.
func idxTargets(x *idx, path string) ([]float64, int, error) {
	if (x.kind != idxFloat32 && x.kind != idxFloat64) || len(x.dims) > 2 {
		return nil, 0, fmt.Errorf("dataset: %s: %w: targets must be float32 or float64 of N or N x dim", path, ErrFormat)
	}
	dim := 1
	if len(x.dims) == 2 {
		dim = x.dims[1]
	}
	out := make([]float64, x.dims[0]*dim)
	for i := range out {
		if x.kind == idxFloat32 {
			out[i] = float64(math.Float32frombits(binary.BigEndian.Uint32(x.data[4*i:])))
		} else {
			out[i] = math.Float64frombits(binary.BigEndian.Uint64(x.data[8*i:]))
		}
		if math.IsNaN(out[i]) || math.IsInf(out[i], 0) {
			return nil, 0, fmt.Errorf("dataset: %s: %w: target %d is %v", path, ErrFormat, i, out[i])
		}
	}
	return out, dim, nil
}

// idxHeader encodes an IDX header.
func idxHeader(kind byte, dims ...int) []byte {
	b := []byte{0, 0, kind, byte(len(dims))}
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, uint32(d))
	}
	return b
}

// WriteIDX writes the set's images (pixels rounded to bytes) and, unless
// labelsPath is empty, its labels, as IDX files; a name ending in ".gz" is
// gzip-compressed. Each file is written atomically.
func WriteIDX(imagesPath, labelsPath string, s *Set) error {
	if err := s.Validate(); err != nil {
		return err
	}
	var lab []byte
	if labelsPath != "" {
		if s.Labels == nil {
			return fmt.Errorf("dataset: %s: the set has no labels", labelsPath)
		}
		var err error
		if lab, err = idxLabelBytes(s.Labels, labelsPath); err != nil {
			return err
		}
	}
	if err := writeAtomic(imagesPath, idxImageBytes(s)); err != nil {
		return err
	}
	if labelsPath == "" {
		return nil
	}
	return writeAtomic(labelsPath, lab)
}

// WriteIDXTargets writes the set's real targets as a float32 IDX file.
func WriteIDXTargets(path string, s *Set) error {
	if s.Targets == nil || s.TargetDim < 1 {
		return fmt.Errorf("dataset: %s: the set has no targets", path)
	}
	b := idxHeader(idxFloat32, s.Len(), s.TargetDim)
	if s.TargetDim == 1 {
		b = idxHeader(idxFloat32, s.Len())
	}
	for _, v := range s.Targets {
		b = binary.BigEndian.AppendUint32(b, math.Float32bits(float32(v)))
	}
	return writeAtomic(path, b)
}

// idxImageBytes encodes the set's images as an IDX ubyte file (pixels
// rounded to bytes): N x rows x cols, or N x C x rows x cols for images of
// C > 1 planes.
func idxImageBytes(s *Set) []byte {
	img := idxHeader(idxUbyte, s.Len(), s.Rows, s.Cols)
	if s.Chans() > 1 {
		img = idxHeader(idxUbyte, s.Len(), s.Chans(), s.Rows, s.Cols)
	}
	for _, v := range s.Pix {
		img = append(img, pixelByte(v))
	}
	return img
}

// pixelByte rounds a grey level in [0, 1] to a byte.
func pixelByte(v float32) byte {
	return byte(math.Round(float64(min(max(v, 0), 1)) * 255))
}

// idxLabelBytes encodes labels as an IDX ubyte file.
func idxLabelBytes(labels []int, name string) ([]byte, error) {
	lab := idxHeader(idxUbyte, len(labels))
	for _, l := range labels {
		if l < 0 || l > 255 {
			return nil, fmt.Errorf("dataset: %s: label %d does not fit a byte", name, l)
		}
		lab = append(lab, byte(l))
	}
	return lab, nil
}

// idxFloat64Bytes encodes n x dim values as an IDX float64 file (one
// dimension when dim is 1).
func idxFloat64Bytes(v []float64, n, dim int) []byte {
	b := idxHeader(idxFloat64, n, dim)
	if dim == 1 {
		b = idxHeader(idxFloat64, n)
	}
	for _, x := range v {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// idxInt32Bytes encodes integers as a one-dimensional IDX int32 file.
func idxInt32Bytes(v []int) []byte {
	b := idxHeader(idxInt32, len(v))
	for _, x := range v {
		b = binary.BigEndian.AppendUint32(b, uint32(int32(x)))
	}
	return b
}

// idxInts decodes a one-dimensional IDX int32 file.
func idxInts(x *idx) ([]int, error) {
	if x.kind != idxInt32 || len(x.dims) != 1 {
		return nil, fmt.Errorf("%w: want int32 values of one dimension, got type 0x%02x with %d dimensions", ErrFormat, x.kind, len(x.dims))
	}
	out := make([]int, x.dims[0])
	for i := range out {
		out[i] = int(int32(binary.BigEndian.Uint32(x.data[4*i:])))
	}
	return out, nil
}

// writeAtomic writes data to path through a temporary file in the same
// folder, synced and renamed (internal/atomicfile); gzip-compressed when
// path ends in ".gz".
func writeAtomic(path string, data []byte) error {
	err := atomicfile.Write(path, func(w io.Writer) error {
		if !strings.HasSuffix(path, ".gz") {
			_, err := w.Write(data)
			return err
		}
		gz := gzip.NewWriter(w)
		if _, err := gz.Write(data); err != nil {
			return err
		}
		return gz.Close()
	})
	if err != nil {
		return fmt.Errorf("dataset: write %s: %w", path, err)
	}
	return nil
}
