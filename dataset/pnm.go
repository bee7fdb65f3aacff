package dataset

import (
	"bufio"
	"fmt"
	"io"
)

// readPNM decodes a Netpbm grey or colour image: P2 (grey, text), P5 (grey,
// binary), P3 (RGB, text), P6 (RGB, binary); maxval up to 65535. The size
// the header claims is bounded (maxPixels) before anything is allocated for
// it; samples above maxval are refused.
func readPNM(r *bufio.Reader) (rawImage, error) {
	magic := make([]byte, 2)
	if _, err := io.ReadFull(r, magic); err != nil {
		return nil, fmt.Errorf("%w: truncated PNM header", ErrFormat)
	}
	kind := magic[1]
	if kind != '2' && kind != '3' && kind != '5' && kind != '6' {
		return nil, fmt.Errorf("%w: unsupported PNM type P%c", ErrFormat, kind)
	}
	var hdr [3]int
	for i := range hdr {
		v, err := pnmInt(r)
		if err != nil {
			return nil, err
		}
		hdr[i] = v
	}
	cols, rows, maxval := hdr[0], hdr[1], hdr[2]
	if cols < 1 || rows < 1 || cols*rows > maxPixels || cols > maxPixels || rows > maxPixels {
		return nil, fmt.Errorf("%w: PNM of %d x %d", ErrFormat, cols, rows)
	}
	if maxval < 1 || maxval > 65535 {
		return nil, fmt.Errorf("%w: PNM maxval %d", ErrFormat, maxval)
	}
	channels := 1
	if kind == '3' || kind == '6' {
		channels = 3
	}
	n := rows * cols * channels
	vals := make([]int, 0, min(n, 1<<20)) // grows with the data actually read
	if kind == '2' || kind == '3' {
		for len(vals) < n {
			v, err := pnmInt(r)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
	} else {
		// One whitespace byte separates the header from binary data.
		c, err := r.ReadByte()
		if err != nil {
			return nil, fmt.Errorf("%w: truncated PNM", ErrFormat)
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return nil, fmt.Errorf("%w: PNM: byte %q after maxval, want white space", ErrFormat, c)
		}
		width := 1
		if maxval > 255 {
			width = 2
		}
		buf := make([]byte, width)
		for len(vals) < n {
			if _, err := io.ReadFull(r, buf); err != nil {
				return nil, fmt.Errorf("%w: PNM truncated after %d of %d samples", ErrFormat, len(vals), n)
			}
			v := int(buf[0])
			if width == 2 {
				v = v<<8 | int(buf[1])
			}
			vals = append(vals, v)
		}
	}
	for i, v := range vals {
		if v > maxval {
			return nil, fmt.Errorf("%w: PNM sample %d (pixel %d) exceeds maxval %d", ErrFormat, v, i/channels, maxval)
		}
	}
	return &pnmImage{vals: vals, channels: channels, maxval: maxval, rows: rows, cols: cols}, nil
}

// pnmImage is a decoded Netpbm image: its samples, channels (1 or 3) per
// pixel, scaled by maxval.
type pnmImage struct {
	vals                         []int
	channels, maxval, rows, cols int
}

func (p *pnmImage) size() (int, int) { return p.rows, p.cols }

func (p *pnmImage) colour() bool {
	if p.channels == 1 {
		return false
	}
	for i := 0; i < len(p.vals); i += 3 {
		if p.vals[i] != p.vals[i+1] || p.vals[i+1] != p.vals[i+2] {
			return true
		}
	}
	return false
}

// grey gives the sample of a grey image, the luma (BT.601) of a colour one.
func (p *pnmImage) grey(pix []float32) {
	m := float64(p.maxval)
	for i := range pix {
		if p.channels == 1 {
			pix[i] = float32(float64(p.vals[i]) / m)
			continue
		}
		r, g, b := float64(p.vals[3*i]), float64(p.vals[3*i+1]), float64(p.vals[3*i+2])
		pix[i] = float32(min((0.299*r+0.587*g+0.114*b)/m, 1))
	}
}

func (p *pnmImage) rgb(pix []float32) {
	m := float64(p.maxval)
	n := p.rows * p.cols
	for i := 0; i < n; i++ {
		for c := 0; c < 3; c++ {
			pix[c*n+i] = float32(float64(p.vals[3*i+c]) / m)
		}
	}
}

// pnmInt reads one decimal header or text value, skipping white space and
// comments.
func pnmInt(r *bufio.Reader) (int, error) {
	c, err := r.ReadByte()
	for err == nil && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '#') {
		if c == '#' {
			for err == nil && c != '\n' {
				c, err = r.ReadByte()
			}
		}
		if err == nil {
			c, err = r.ReadByte()
		}
	}
	if err != nil {
		return 0, fmt.Errorf("%w: truncated PNM", ErrFormat)
	}
	if c < '0' || c > '9' {
		return 0, fmt.Errorf("%w: PNM: unexpected byte %q", ErrFormat, c)
	}
	v := 0
	for err == nil && c >= '0' && c <= '9' {
		v = v*10 + int(c-'0')
		if v > 1<<30 {
			return 0, fmt.Errorf("%w: PNM: number too large", ErrFormat)
		}
		c, err = r.ReadByte()
	}
	if err == nil {
		r.UnreadByte()
	}
	return v, nil
}
