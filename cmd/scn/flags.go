package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Every numeric flag of the command is one of the checked types below: it
// parses its value and checks its range when the command line is read, so
// that a bad value is a usage error (exit status 2) naming the flag and
// the allowed range, before anything is loaded or fitted. A test walks the
// command tree and fails on any numeric flag of another type.

// intValue is an int flag with an allowed range [min, max].
type intValue struct {
	p        *int
	min, max int
}

// intVar registers an int flag whose value must lie in [lo, hi].
func intVar(f *pflag.FlagSet, p *int, name string, def, lo, hi int, usage string) {
	*p = def
	f.Var(&intValue{p: p, min: lo, max: hi}, name, usage+" ("+intRange(lo, hi)+")")
}

func (v *intValue) String() string { return strconv.Itoa(*v.p) }
func (v *intValue) Type() string   { return "int" }
func (v *intValue) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < int64(v.min) || n > int64(v.max) {
		return fmt.Errorf("want an integer %s", intRange(v.min, v.max))
	}
	*v.p = int(n)
	return nil
}

// floatValue is a float64 flag with an allowed range: finite, above min
// (or at it, with minOK) and at most max.
type floatValue struct {
	p        *float64
	min, max float64
	minOK    bool
}

// floatVar registers a finite float64 flag whose value must lie in
// [lo, hi], or (lo, hi] when loOK is false.
func floatVar(f *pflag.FlagSet, p *float64, name string, def, lo, hi float64, loOK bool, usage string) {
	*p = def
	f.Var(&floatValue{p: p, min: lo, max: hi, minOK: loOK}, name, usage+" ("+rangeText(lo, hi, loOK)+")")
}

func (v *floatValue) String() string { return strconv.FormatFloat(*v.p, 'g', -1, 64) }
func (v *floatValue) Type() string   { return "float" }
func (v *floatValue) Set(s string) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !inRange(x, v.min, v.max, v.minOK) {
		return fmt.Errorf("want a number %s", rangeText(v.min, v.max, v.minOK))
	}
	*v.p = x
	return nil
}

// inRange reports whether x is finite and lies in [lo, hi] (or (lo, hi]
// without loOK).
func inRange(x, lo, hi float64, loOK bool) bool {
	if math.IsNaN(x) || math.IsInf(x, 0) || x > hi {
		return false
	}
	return x > lo || (loOK && x == lo)
}

// intRange describes an allowed integer range: "from 1 to 1048576".
func intRange(lo, hi int) string { return fmt.Sprintf("from %d to %d", lo, hi) }

// rangeText describes an allowed range: "from 1 to 1048576", "in (0, 1e+06]".
func rangeText(lo, hi float64, loOK bool) string {
	switch {
	case hi == math.MaxFloat64 && loOK:
		return num(lo) + " or more, finite"
	case hi == math.MaxFloat64:
		return "more than " + num(lo) + ", finite"
	}
	if loOK {
		return fmt.Sprintf("from %s to %s", num(lo), num(hi))
	}
	return fmt.Sprintf("in (%s, %s]", num(lo), num(hi))
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// uint64Value is a uint64 flag (seeds): any value from 0 to 2^64-1.
type uint64Value struct{ p *uint64 }

// uint64Var registers a uint64 flag.
func uint64Var(f *pflag.FlagSet, p *uint64, name string, def uint64, usage string) {
	*p = def
	f.Var(&uint64Value{p}, name, usage)
}

func (v *uint64Value) String() string { return strconv.FormatUint(*v.p, 10) }
func (v *uint64Value) Type() string   { return "uint" }
func (v *uint64Value) Set(s string) error {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return fmt.Errorf("want an integer from 0 to %d", uint64(math.MaxUint64))
	}
	*v.p = n
	return nil
}

// listRange is the allowed range of each number of a comma-separated list
// flag (--scales, --ratios, --ppa); the lists are strings, parsed and
// checked by parseList when the command runs, before anything is loaded.
type listRange struct {
	flag     string
	min, max float64
	minOK    bool
	why      string // what the range protects, for the message
}

// Ranges of the list flags.
var (
	// Weights and biases are float32 drawn from [-lambda, lambda]; a 2D
	// node's weights are products u_i v_j, up to lambda^2. Up to 1e6 their
	// pre-activations stay far from float32's 3.4e38 on any image.
	scalesRange = listRange{flag: "--scales", min: 0, max: 1e6, why: "hidden weights are float32, drawn from [-lambda, lambda]"}
	ratiosRange = listRange{flag: "--ratios", min: 0, max: 1, why: "r is a contraction factor, 0 < r < 1"}
	ppaRange    = listRange{flag: "--ppa", min: 0, max: math.MaxFloat64, why: "a PPA threshold is a positive distance"}
)

// parseList parses a comma-separated list of numbers and checks each
// against r; errors are usage errors naming the flag and the range.
func (r listRange) parseList(s string) ([]float64, error) {
	v, err := floatList(s)
	if err != nil {
		return nil, usageError{fmt.Errorf("%s %q: %w", r.flag, s, err)}
	}
	for _, x := range v {
		ok := inRange(x, r.min, r.max, r.minOK)
		if r == ratiosRange {
			ok = x > 0 && x < 1
		}
		if !ok {
			rng := rangeText(r.min, r.max, r.minOK)
			switch {
			case r == ratiosRange:
				rng = "in (0, 1)"
			case r.max == math.MaxFloat64:
				rng = "finite and > " + num(r.min)
			}
			return nil, usageError{fmt.Errorf("%s %q: %v is out of range: want numbers %s (%s)", r.flag, s, x, rng, r.why)}
		}
	}
	return v, nil
}

// maxSide bounds --rows and --cols: an image has at most 2^24 pixels (the
// readers' limit).
const maxSide = 1 << 24

// maxTrials bounds --trials.
const maxTrials = 100000

// durationValue is a time.Duration flag with an allowed range [min, max].
type durationValue struct {
	p        *time.Duration
	min, max time.Duration
}

// durationVar registers a duration flag whose value must lie in [lo, hi].
func durationVar(f *pflag.FlagSet, p *time.Duration, name string, def, lo, hi time.Duration, usage string) {
	*p = def
	f.Var(&durationValue{p: p, min: lo, max: hi}, name, usage+fmt.Sprintf(" (from %v to %v)", lo, hi))
}

func (v *durationValue) String() string { return v.p.String() }
func (v *durationValue) Type() string   { return "duration" }
func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < v.min || d > v.max {
		return fmt.Errorf("want a duration from %v to %v", v.min, v.max)
	}
	*v.p = d
	return nil
}

// int64Value is an int64 flag with an allowed range [min, max].
type int64Value struct {
	p        *int64
	min, max int64
}

// int64Var registers an int64 flag whose value must lie in [lo, hi].
func int64Var(f *pflag.FlagSet, p *int64, name string, def, lo, hi int64, usage string) {
	*p = def
	f.Var(&int64Value{p: p, min: lo, max: hi}, name, usage+fmt.Sprintf(" (from %d to %d)", lo, hi))
}

func (v *int64Value) String() string { return strconv.FormatInt(*v.p, 10) }
func (v *int64Value) Type() string   { return "int64" }
func (v *int64Value) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < v.min || n > v.max {
		return fmt.Errorf("want an integer from %d to %d", v.min, v.max)
	}
	*v.p = n
	return nil
}
