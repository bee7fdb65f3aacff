package modelfile

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Validate reports an unknown Invert or Fit value, a half-given or
// negative resize, a Fit without a resize, or a channel count out of
// range (scn.PreprocessRecord.Validate).
func (p Preprocessing) Validate() error {
	switch p.Invert {
	case "", "no", "yes", "auto":
	default:
		return fmt.Errorf("invert %q: want auto, yes or no", p.Invert)
	}
	if p.ResizeRows < 0 || p.ResizeCols < 0 || (p.ResizeRows > 0) != (p.ResizeCols > 0) {
		return fmt.Errorf("resize to %d x %d: give both sizes, positive", p.ResizeRows, p.ResizeCols)
	}
	switch p.Fit {
	case "", "stretch", "pad", "crop":
	default:
		return fmt.Errorf("fit %q: want pad, crop or stretch", p.Fit)
	}
	if p.Fit != "" && p.ResizeRows == 0 {
		return fmt.Errorf("fit %q without a resize", p.Fit)
	}
	if p.Channels < 0 || p.Channels > MaxChannels {
		return fmt.Errorf("%d channels: want 0 to %d", p.Channels, MaxChannels)
	}
	if p.MNIST && p.Channels > 1 {
		return fmt.Errorf("the MNIST convention takes grey images, not %d channels", p.Channels)
	}
	return nil
}

// LegacyPreprocessKey is the metadata key under which files written
// before the preprocessing record had its own header field kept it, as
// JSON text.
const LegacyPreprocessKey = "preprocess"

// LegacyPreprocessing moves the JSON preprocessing record of an older file
// from meta into a Preprocessing (the JSON fields are the same); it
// returns meta without the key, a copy when it had it. The errors say
// what is wrong with the record (the caller says it is a format error).
func LegacyPreprocessing(meta map[string]string) (Preprocessing, map[string]string, error) {
	var p Preprocessing
	raw, ok := meta[LegacyPreprocessKey]
	if !ok {
		return p, meta, nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, meta, fmt.Errorf("unreadable preprocessing record %q in the metadata: %v", raw, err)
	}
	if err := p.Validate(); err != nil {
		return p, meta, fmt.Errorf("preprocessing record %q in the metadata: %v", raw, err)
	}
	rest := make(map[string]string, len(meta)-1)
	for k, v := range meta {
		if k != LegacyPreprocessKey {
			rest[k] = v
		}
	}
	if len(rest) == 0 {
		rest = nil
	}
	return p, rest, nil
}
