package serve

import (
	"fmt"
	"strconv"
)

// maxLabelBytes bounds one label of a :learn batch.
const maxLabelBytes = 256

// parseLearnBatch decodes the JSON batch of a :learn request: a
// prediction batch with, for a classification, the label of each image,
//
//	{"images": [IMAGE, ...], "labels": ["3", "7", ...]}
//
// (class names as strings; whole numbers are taken as the class named by
// their decimal digits), or, for a regression, the targets of each image,
//
//	{"images": [IMAGE, ...], "targets": [[0.5, 1.2], ...]}
//
// (a number per output; a plain number for a model of one output). The
// numbers of targets are read as float64 (a value beyond float64's range
// is read as an infinity, which the caller refuses).
func parseLearnBatch(data []byte) (*batch, error) {
	p := &parser{data: data, learn: true}
	b, err := p.batch(len(data)/2 + 1)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errJSON, err)
	}
	return b, nil
}

// learnKey reads the value of "labels" or "targets".
func (p *parser) learnKey(key string, b *batch) error {
	if !p.learn {
		return p.errorf("unknown key %q (want images, top, prepared; labels and targets go to :learn)", key)
	}
	if err := p.expect('['); err != nil {
		return err
	}
	if key == "labels" {
		b.labels = []string{}
	} else {
		b.targets = [][]float64{}
	}
	return p.elements(func() error {
		if key == "labels" {
			l, err := p.label()
			if err != nil {
				return fmt.Errorf("label %d: %w", len(b.labels), err)
			}
			b.labels = append(b.labels, l)
		} else {
			t, err := p.target()
			if err != nil {
				return fmt.Errorf("target %d: %w", len(b.targets), err)
			}
			b.targets = append(b.targets, t)
		}
		return nil
	}, func() string { return fmt.Sprintf("in %q", key) })
}

// label reads a class name: a string of printable ASCII without escapes
// (as keys are), or a whole number.
func (p *parser) label() (string, error) {
	if p.space() != '"' {
		v, err := p.float64()
		if err != nil {
			return "", err
		}
		if v != float64(int64(v)) || v < -1e15 || v > 1e15 {
			return "", p.errorf("label %v: want a class name (a string) or a whole number", v)
		}
		return strconv.FormatInt(int64(v), 10), nil
	}
	s, err := p.key()
	if err != nil {
		return "", err
	}
	if len(s) > maxLabelBytes {
		return "", p.errorf("label of %d bytes: the limit is %d", len(s), maxLabelBytes)
	}
	return s, nil
}

// target reads one image's targets: an array of numbers, or one number.
func (p *parser) target() ([]float64, error) {
	if p.space() != '[' {
		v, err := p.float64()
		return []float64{v}, err
	}
	p.pos++
	var t []float64
	for {
		v, err := p.float64()
		if err != nil {
			return nil, err
		}
		t = append(t, v)
		c := p.space()
		p.pos++
		if c == ']' {
			return t, nil
		}
		if c != ',' {
			p.pos--
			return nil, p.errorf("found %q, want ',' or ']' after a target value", c)
		}
	}
}

// float64 reads one JSON number (strict grammar) as a float64; one
// beyond float64's range is read as an infinity.
func (p *parser) float64() (float64, error) {
	p.space()
	d, i := p.data, p.pos
	start := i
	digits := func() int {
		k := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i - k
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch n := digits(); {
	case n == 0:
		return 0, p.errorf("want a number")
	case n > 1 && d[i-n] == '0':
		return 0, p.errorf("number with a leading zero")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return 0, p.errorf("want digits after '.'")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, p.errorf("want digits in the exponent")
		}
	}
	v, err := strconv.ParseFloat(string(d[start:i]), 64)
	if err != nil && v == 0 {
		return 0, p.errorf("number %q: %v", d[start:i], err)
	}
	p.pos = i
	return v, nil // out of range: +-Inf (refused by the caller), or a denormal
}
