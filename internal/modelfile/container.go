package modelfile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

const (
	// Magic opens every model file.
	Magic = "2DSCNMDL"
	// Version is the newest format version this build reads and writes:
	// the version of a model that uses an extension.
	Version = 3
	// ColourVersion is the version of colour models' files without
	// extensions.
	ColourVersion = 2
	// GreyVersion is the version of grey models' files without extensions
	// (and the oldest version read).
	GreyVersion = 1
	// MaxHeader bounds the header's length in bytes.
	MaxHeader = 1 << 20
	// PreambleSize is the bytes before the header: magic, version, header
	// length.
	PreambleSize = 16
	// MaxChannels bounds a model's (and a preprocessing record's)
	// channels: the readers refuse more than 1024 planes per image.
	MaxChannels = 1024
	// MaxValues bounds what a header may claim (2^33 values is 32 GiB of
	// float32), so that sizes cannot overflow.
	MaxValues = 1 << 33
)

// Castagnoli is the table of the CRC-32 that ends the project's files.
var Castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrFormat is wrapped by every error about an unreadable model file
// (scn.ErrFormat is this value).
var ErrFormat = errors.New("scn: bad model file")

// Write writes one model file to w: the preamble of format version v, the
// header h as JSON, the payload of size bytes that appendPayload appends to
// the slice it is given, and the checksum. It refuses a header longer than
// MaxHeader and a payload of another size than size.
func Write(w io.Writer, v uint32, h *Header, size int, appendPayload func([]byte) []byte) (int64, error) {
	hdr, err := json.Marshal(h)
	if err != nil {
		return 0, fmt.Errorf("scn: encode header: %w", err)
	}
	if len(hdr) > MaxHeader {
		return 0, fmt.Errorf("scn: model header of %d bytes exceeds %d", len(hdr), MaxHeader)
	}
	var buf bytes.Buffer
	buf.Grow(PreambleSize + len(hdr) + size + 4)
	buf.WriteString(Magic)
	le := binary.LittleEndian
	buf.Write(le.AppendUint32(nil, v))
	buf.Write(le.AppendUint32(nil, uint32(len(hdr))))
	buf.Write(hdr)
	b := appendPayload(buf.AvailableBuffer())
	if len(b) != size {
		return 0, fmt.Errorf("scn: model payload of %d bytes, its header describes %d", len(b), size)
	}
	buf.Write(b)
	return WriteChecked(w, &buf)
}

// WriteChecked appends the CRC-32 (Castagnoli) of buf's bytes to them and
// writes them to w: the end of every model file.
func WriteChecked(w io.Writer, buf *bytes.Buffer) (int64, error) {
	buf.Write(binary.LittleEndian.AppendUint32(nil, crc32.Checksum(buf.Bytes(), Castagnoli)))
	n, err := w.Write(buf.Bytes())
	return int64(n), err
}

// ReadHeader reads the preamble and the header of a model file from r,
// appending their bytes to raw (empty on entry), and returns the header,
// the format version and the header's length. It checks the magic, the
// version, the header's length (before reading it), the JSON (no unknown
// field), and the fields against the version: channels absent in version
// 1, 2 ... MaxChannels in version 2, absent or so in version 3, and no
// field of version 3 (UsesV3) in older files. What the fields claim about a
// model is the caller's to check (CheckSizes, CheckLayers, ...).
func ReadHeader(r io.Reader, raw *bytes.Buffer) (*Header, uint32, int, error) {
	if _, err := io.CopyN(raw, r, PreambleSize); err != nil {
		return nil, 0, 0, fmt.Errorf("%w: truncated preamble (%d of %d bytes)", ErrFormat, raw.Len(), PreambleSize)
	}
	pre := raw.Bytes()
	if string(pre[:8]) != Magic {
		return nil, 0, 0, fmt.Errorf("%w: wrong magic %q, not a model file", ErrFormat, pre[:8])
	}
	le := binary.LittleEndian
	v := le.Uint32(pre[8:])
	if v < GreyVersion || v > Version {
		return nil, 0, 0, fmt.Errorf("%w: format version %d, this build reads versions %d to %d", ErrFormat, v, GreyVersion, Version)
	}
	hlen := int64(le.Uint32(pre[12:]))
	if hlen > MaxHeader {
		return nil, 0, 0, fmt.Errorf("%w: header length %d exceeds %d", ErrFormat, hlen, MaxHeader)
	}
	if n, err := io.CopyN(raw, r, hlen); err != nil {
		return nil, 0, 0, fmt.Errorf("%w: truncated header (%d of %d bytes)", ErrFormat, n, hlen)
	}
	var h Header
	dec := json.NewDecoder(bytes.NewReader(raw.Bytes()[PreambleSize:]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, 0, 0, fmt.Errorf("%w: header: %v", ErrFormat, err)
	}
	switch {
	case v == GreyVersion && h.Channels != 0:
		return nil, 0, 0, fmt.Errorf("%w: version %d file with %d channels (channels need version %d)", ErrFormat, v, h.Channels, ColourVersion)
	case v == ColourVersion && (h.Channels < 2 || h.Channels > MaxChannels):
		return nil, 0, 0, fmt.Errorf("%w: version %d file with channels = %d, want 2 ... %d", ErrFormat, v, h.Channels, MaxChannels)
	case v == Version && (h.Channels == 1 || h.Channels < 0 || h.Channels > MaxChannels):
		return nil, 0, 0, fmt.Errorf("%w: version %d file with channels = %d, want absent or 2 ... %d", ErrFormat, v, h.Channels, MaxChannels)
	case v != Version && h.UsesV3():
		return nil, 0, 0, fmt.Errorf("%w: version %d file with fields of version %d", ErrFormat, v, Version)
	}
	return &h, v, int(hlen), nil
}

// ReadPayload reads from r the payload of size bytes and the checksum that
// follow the preamble and header ReadHeader read into raw (whose length was
// hlen), checks that r holds nothing after them and the checksum, and
// returns the payload (a part of raw's bytes). Memory grows with the bytes
// actually read, never with size.
func ReadPayload(r io.Reader, raw *bytes.Buffer, hlen, size int) ([]byte, error) {
	body := int64(size) + 4
	if n, err := io.CopyN(raw, r, body); err != nil {
		return nil, fmt.Errorf("%w: truncated weights (%d of %d bytes)", ErrFormat, n, body)
	}
	if n, _ := io.CopyN(io.Discard, r, 1); n != 0 {
		return nil, fmt.Errorf("%w: data after the checksum", ErrFormat)
	}
	all := raw.Bytes()
	end := len(all) - 4
	if got, want := crc32.Checksum(all[:end], Castagnoli), binary.LittleEndian.Uint32(all[end:]); got != want {
		return nil, fmt.Errorf("%w: checksum mismatch (file says %08x, content gives %08x)", ErrFormat, want, got)
	}
	return all[PreambleSize+hlen : end], nil
}

// AppendFloat32s appends v little-endian.
func AppendFloat32s(b []byte, v []float32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// AppendFloat64s appends v little-endian.
func AppendFloat64s(b []byte, v []float64) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// PayloadReader reads the little-endian arrays of a model file's payload
// in order; the payload's length has been checked before (ReadPayload with
// the size the header describes), so it does not check again: reading
// past the end panics.
type PayloadReader struct{ b []byte }

// NewPayloadReader returns a reader of the payload b.
func NewPayloadReader(b []byte) *PayloadReader { return &PayloadReader{b: b} }

// Rest returns the bytes not read yet.
func (r *PayloadReader) Rest() []byte { return r.b }

// F32 returns the next n float32 values.
func (r *PayloadReader) F32(n int) []float32 {
	le := binary.LittleEndian
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(le.Uint32(r.b))
		r.b = r.b[4:]
	}
	return out
}

// F64 fills dst with the next len(dst) float64 values.
func (r *PayloadReader) F64(dst []float64) {
	le := binary.LittleEndian
	for i := range dst {
		dst[i] = math.Float64frombits(le.Uint64(r.b))
		r.b = r.b[8:]
	}
}
