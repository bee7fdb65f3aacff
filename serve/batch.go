package serve

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unsafe"
)

// batch is a decoded JSON batch request:
//
//	{"images": [IMAGE, ...], "top": 3, "prepared": false}
//
// where each IMAGE is either a flat array of grey levels (taken as the
// model's shape) or an array of rows, each an array of grey levels. Only
// "images" is required.
type batch struct {
	pix      []float32 // every image's values, one after the other
	shapes   []shape   // one per image
	top      int       // -1 if not given
	prepared bool      // the pixels are what the network sees: no preprocessing
	// labels and targets of a :learn batch (learn_batch.go); nil if not
	// given.
	labels  []string
	targets [][]float64
}

// shape says where an image's values are in batch.pix and how they are laid
// out: rows x cols, or a flat array of cols values when rows is 0.
type shape struct {
	off, rows, cols int
}

// errJSON is wrapped by every error about a malformed batch.
var errJSON = errors.New("malformed JSON batch")

// maxJSONTop bounds "top" (a class count beyond it makes no sense).
const maxJSONTop = 1 << 20

// parseBatch decodes a JSON batch request. It is a small parser of its own
// (encoding/json through reflection takes several times longer on arrays
// of numbers): it accepts exactly the JSON texts whose object has the keys
// above with values of the right types, and refuses anything else
// (unknown or repeated keys, keys spelled with escapes, numbers out of
// float32 range, trailing data) with an error wrapping errJSON.
func parseBatch(data []byte) (*batch, error) {
	p := &parser{data: data}
	b, err := p.batch(len(data)/2 + 1) // a number takes a byte and a separator at least
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errJSON, err)
	}
	return b, nil
}

type parser struct {
	data  []byte
	pos   int
	learn bool // a :learn batch: "labels" and "targets" are keys too
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: "+format, append([]any{p.pos}, args...)...)
}

// space skips JSON white space and returns the next byte (0 at the end).
func (p *parser) space() byte {
	for p.pos < len(p.data) {
		switch c := p.data[p.pos]; c {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return c
		}
	}
	return 0
}

// expect consumes byte c after white space.
func (p *parser) expect(c byte) error {
	if got := p.space(); got != c || p.pos >= len(p.data) {
		if p.pos >= len(p.data) {
			return p.errorf("unexpected end, want %q", c)
		}
		return p.errorf("found %q, want %q", got, c)
	}
	p.pos++
	return nil
}

// batch reads the object; values bounds the numbers it can hold.
func (p *parser) batch(values int) (*batch, error) {
	b := &batch{top: -1, pix: make([]float32, 0, values)}
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	if p.space() == '}' {
		p.pos++
	} else {
		for {
			key, err := p.key()
			if err != nil {
				return nil, err
			}
			if seen[key] {
				return nil, p.errorf("key %q given twice", key)
			}
			seen[key] = true
			if err := p.expect(':'); err != nil {
				return nil, err
			}
			switch key {
			case "images":
				err = p.images(b)
			case "top":
				b.top, err = p.integer()
			case "prepared":
				b.prepared, err = p.boolean()
			case "labels", "targets":
				err = p.learnKey(key, b)
			default:
				return nil, p.errorf("unknown key %q (want images, top, prepared)", key)
			}
			if err != nil {
				return nil, err
			}
			c := p.space()
			p.pos++
			if c == '}' {
				break
			}
			if c != ',' {
				p.pos--
				return nil, p.errorf("found %q, want ',' or '}'", c)
			}
		}
	}
	if p.space(); p.pos != len(p.data) {
		return nil, p.errorf("data after the object")
	}
	if !seen["images"] {
		return nil, fmt.Errorf(`no "images" key`)
	}
	return b, nil
}

// key reads an object key: a string of printable ASCII without escapes.
func (p *parser) key() (string, error) {
	if err := p.expect('"'); err != nil {
		return "", err
	}
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(p.data[start : p.pos-1]), nil
		case c < 0x20 || c > 0x7e || c == '\\':
			return "", p.errorf("key with byte %q (keys are plain ASCII)", c)
		}
		p.pos++
	}
	return "", p.errorf("unterminated key")
}

func (p *parser) boolean() (bool, error) {
	p.space()
	rest := p.data[p.pos:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		p.pos += 4
		return true, nil
	case len(rest) >= 5 && string(rest[:5]) == "false":
		p.pos += 5
		return false, nil
	}
	return false, p.errorf("want true or false")
}

// integer reads a JSON number that is a whole number in [0, maxJSONTop].
func (p *parser) integer() (int, error) {
	v, err := p.number()
	if err != nil {
		return 0, err
	}
	if v != float64(int(v)) || v < 0 || v > maxJSONTop {
		return 0, p.errorf("top %v: want a whole number in [0, %d]", v, maxJSONTop)
	}
	return int(v), nil
}

// number reads one JSON number (strict grammar) as a float64 that is the
// float32 nearest to it, as strconv.ParseFloat(s, 32) gives, and within
// float32 range. It gathers the mantissa and exponent as it checks the
// grammar; the rare numbers that path cannot convert exactly go to strconv.
func (p *parser) number() (float64, error) {
	p.space()
	d := p.data
	start, i := p.pos, p.pos
	neg := false
	if i < len(d) && d[i] == '-' {
		neg = true
		i++
	}
	var m uint64
	digits, exp := 0, 0 // significant digits in m; decimal exponent
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
			if digits < 19 {
				m = m*10 + uint64(d[i]-'0')
				digits++
			} else {
				exp++
				digits = 99 // too many digits for the fast path
			}
		}
	default:
		p.pos = i
		return 0, p.errorf("want a number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		j := i
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
			if m == 0 && d[i] == '0' {
				exp-- // a leading zero: not significant
				continue
			}
			if digits < 19 {
				m = m*10 + uint64(d[i]-'0')
				digits++
				exp--
			} else {
				digits = 99
			}
		}
		if i == j {
			p.pos = i
			return 0, p.errorf("number without digits after '.'")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		eneg := false
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			eneg = d[i] == '-'
			i++
		}
		j, e := i, 0
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
			if e < 100000 {
				e = e*10 + int(d[i]-'0')
			}
		}
		if i == j {
			p.pos = i
			return 0, p.errorf("number without exponent digits")
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	p.pos = i
	if digits <= 15 {
		if v, ok := exactFloat32(m, exp); ok {
			if neg {
				v = -v
			}
			return v, nil
		}
	}
	// The bytes are not kept: a string header over them avoids a copy per
	// number.
	s := unsafe.String(&d[start], i-start)
	v, err := strconv.ParseFloat(s, 32)
	if err != nil {
		return 0, p.errorf("number %s out of range", s)
	}
	return v, nil
}

// pow10 are the powers of ten exactly representable in float64.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactFloat32 returns the float32 nearest to m x 10^exp (m < 10^15), as
// strconv.ParseFloat(s, 32) does, and says whether it could:
// float64(m) / 10^-exp and float64(m) * 10^exp are correctly rounded
// float64 values (both operands are exact), and rounding that to float32
// gives the float32 nearest the decimal unless the float64 falls exactly on
// a midpoint between two float32 values (the decimal may then lie on
// either side of it) or outside float32's normal range: those are left to
// strconv.
func exactFloat32(m uint64, exp int) (float64, bool) {
	var f float64
	switch {
	case m == 0:
		return 0, true
	case exp >= 0 && exp < len(pow10):
		f = float64(m) * pow10[exp]
	case exp < 0 && -exp < len(pow10):
		f = float64(m) / pow10[-exp]
	default:
		return 0, false
	}
	if f < 0x1p-126 || f > math.MaxFloat32 {
		return 0, false
	}
	// A float32 midpoint has its 29 low mantissa bits at 1 << 28.
	if math.Float64bits(f)&(1<<29-1) == 1<<28 {
		return 0, false
	}
	return float64(float32(f)), true
}

// images reads the array of images into b.
func (p *parser) images(b *batch) error {
	if err := p.expect('['); err != nil {
		return err
	}
	return p.elements(func() error { return p.image(b) },
		func() string { return fmt.Sprintf("after image %d", len(b.shapes)-1) })
}

// elements reads the rest of a JSON array whose '[' is read: nothing for
// an empty one, else item for each element, the elements separated by
// ','. where names the element last read, for the error at a separator
// that is neither ',' nor ']'.
func (p *parser) elements(item func() error, where func() string) error {
	if p.space() == ']' {
		p.pos++
		return nil
	}
	for {
		if err := item(); err != nil {
			return err
		}
		c := p.space()
		p.pos++
		if c == ']' {
			return nil
		}
		if c != ',' {
			p.pos--
			return p.errorf("found %q, want ',' or ']' %s", c, where())
		}
	}
}

// image reads one image: a flat array of numbers or an array of rows.
func (p *parser) image(b *batch) error {
	p.space()
	open := p.pos
	if err := p.expect('['); err != nil {
		return fmt.Errorf("image %d: %w", len(b.shapes), err)
	}
	s := shape{off: len(b.pix)}
	switch p.space() {
	case ']':
		return p.errorf("image %d is empty", len(b.shapes))
	case '[':
		for {
			n, err := p.row(b)
			if err != nil {
				return fmt.Errorf("image %d, row %d: %w", len(b.shapes), s.rows, err)
			}
			if s.rows > 0 && n != s.cols {
				return p.errorf("image %d: row %d has %d values, row 0 has %d", len(b.shapes), s.rows, n, s.cols)
			}
			s.rows, s.cols = s.rows+1, n
			c := p.space()
			p.pos++
			if c == ']' {
				break
			}
			if c != ',' {
				p.pos--
				return p.errorf("image %d: found %q, want ',' or ']' after a row", len(b.shapes), c)
			}
		}
	default:
		p.pos = open // row reads the '[' again
		n, err := p.row(b)
		if err != nil {
			return fmt.Errorf("image %d: %w", len(b.shapes), err)
		}
		s.cols = n
	}
	b.shapes = append(b.shapes, s)
	return nil
}

// row reads a non-empty array of numbers onto b.pix and returns its length.
func (p *parser) row(b *batch) (int, error) {
	if err := p.expect('['); err != nil {
		return 0, err
	}
	n := 0
	for {
		var v float64
		if d := p.data; p.pos+1 < len(d) && d[p.pos] == '0' && (d[p.pos+1] == ',' || d[p.pos+1] == ']') {
			p.pos++ // a plain 0, the commonest grey level
		} else {
			var err error
			if v, err = p.number(); err != nil {
				return 0, err
			}
		}
		b.pix = append(b.pix, float32(v))
		n++
		c := p.space()
		p.pos++
		if c == ']' {
			return n, nil
		}
		if c != ',' {
			p.pos--
			return 0, p.errorf("found %q, want ',' or ']' after a value", c)
		}
	}
}
