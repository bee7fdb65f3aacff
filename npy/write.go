package npy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Write writes a as a .npy array: format version 1.0 (2.0 when the header
// needs it), little-endian, C order, the header padded so that the data
// start at a multiple of 64 bytes, as numpy.save does. Strings are written
// as unicode ('<U n', n the longest string's length in characters).
func Write(w io.Writer, a *Array) error {
	if err := a.check(); err != nil {
		return err
	}
	var data []byte
	var descr string
	le := binary.LittleEndian
	switch d := a.Data.(type) {
	case []string:
		n := maxRunes(d)
		descr = fmt.Sprintf("<U%d", n)
		data = make([]byte, 0, 4*n*len(d))
		for _, s := range d {
			k := 0
			for _, c := range s {
				data = le.AppendUint32(data, uint32(c))
				k++
			}
			data = append(data, make([]byte, 4*(n-k))...)
		}
	default:
		t, _ := typeOf(a.Data)
		descr = t.descr()
		data = encode(a.Data)
	}
	shape := make([]string, len(a.Shape))
	for i, d := range a.Shape {
		shape[i] = strconv.Itoa(d)
	}
	tuple := "(" + strings.Join(shape, ", ") + ")"
	if len(shape) == 1 {
		tuple = "(" + shape[0] + ",)"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, tuple)
	pre := []byte(magic + "\x01\x00")
	lenBytes := 2
	if len(dict)+1+10+64 > math.MaxUint16 {
		pre, lenBytes = []byte(magic+"\x02\x00"), 4
	}
	total := len(pre) + lenBytes + len(dict) + 1
	pad := (64 - total%64) % 64
	hlen := len(dict) + pad + 1
	if lenBytes == 2 {
		pre = le.AppendUint16(pre, uint16(hlen))
	} else {
		pre = le.AppendUint32(pre, uint32(hlen))
	}
	pre = append(pre, dict...)
	pre = append(pre, bytes.Repeat([]byte{' '}, pad)...)
	pre = append(pre, '\n')
	if _, err := w.Write(pre); err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	return nil
}

// maxRunes returns the length in characters of the longest string (at
// least 1, as NumPy's smallest unicode type is '<U1').
func maxRunes(s []string) int {
	n := 1
	for _, v := range s {
		n = max(n, utf8.RuneCountInString(v))
	}
	return n
}

// encode returns the little-endian bytes of a numeric slice (one of the
// types typeOf knows; nil for any other).
func encode(data any) []byte {
	b, err := binary.Append(nil, binary.LittleEndian, data)
	if err != nil {
		return nil
	}
	return b
}

// WriteFile writes a to path as a .npy file, atomically.
func WriteFile(path string, a *Array) error {
	return writeAtomic(path, func(w io.Writer) error { return Write(w, a) })
}

// writeAtomic writes a file through a temporary file in the same folder,
// synced and renamed over path, so that path holds either its old content
// or the whole new one.
func writeAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("npy: write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	err = write(f)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes 0600 files
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("npy: write %s: %w", path, err)
	}
	return nil
}
