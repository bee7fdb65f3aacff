package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/internal/atomicfile"
)

// Resuming: every fitted model's record (trialOutcome) is written as it
// ends to Cache/<label>/t<trial>-<kind>.json, atomically, with a
// fingerprint of everything that determines it (the label, trial, seed,
// configuration, L, checkpoints, selection, what is scored, the data folder
// and protocol). A later run with the same output folder reads a record
// whose fingerprint matches instead of fitting again, so an interrupted
// `scn experiment` loses at most the fit that was running, and a rerun
// gives the results of an uninterrupted one. Options.Fresh ignores the
// records on disk but writes its own (overwriting them), so that a fresh
// run is itself resumable.

// cachedTrial is one record on disk.
type cachedTrial struct {
	Fingerprint string       `json:"fingerprint"`
	Outcome     trialOutcome `json:"outcome"`
}

// trialCache returns the folder of the per-trial records of a run: one per
// protocol (quick or paper) under OutDir/trials.
func (o Options) trialCache() string {
	proto := "paper"
	if o.Quick {
		proto = "quick"
	}
	return filepath.Join(o.OutDir, "trials", proto)
}

// dataID names the data and protocol of a run for the fingerprints: the
// data folder (as given) and whether the protocol is the quick one.
func (o Options) dataID() string { return fmt.Sprintf("%s quick=%v", o.DataDir, o.Quick) }

// fingerprint describes everything a trial's record depends on. The
// configuration and the selection are written as JSON with their zero
// fields left out (stableJSON), so a field added to scn.Config later, whose
// zero value keeps the old behaviour, leaves the fingerprints of earlier
// runs' records unchanged and a full-protocol run resumes across versions.
// Records are only as valid as the code that made them: the fingerprint
// does not name the code, so a deliberate change of what a configuration
// fits (one that re-pins TestGoldenModelBytes) must also change the "v2"
// below, which orphans every record.
func (sp trialSpec) fingerprint(cfg scn.Config, trial int) string {
	sel := "none"
	if sp.Select != nil {
		sel = stableJSON(*sp.Select)
	}
	return fmt.Sprintf("v2|%s|trial %d|%s|L %d|cps %v|select %s|indicator %v|robust %v|outputs %v|data %s",
		sp.Label, trial, stableJSON(cfg), sp.MaxNodes, sp.Checkpoints, sel, sp.Indicator, sp.Robust, sp.KeepOutputs, sp.DataID)
}

// stableJSON encodes v as JSON with keys sorted and every zero value
// (false, 0, "", null, empty list or object) left out, at any depth.
func stableJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v) // not reached for the plain structs fingerprinted here
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		return string(b)
	}
	out, _ := json.Marshal(dropZero(tree)) // maps encode with sorted keys
	return string(out)
}

// dropZero removes the zero values of a decoded JSON tree; it returns nil
// for a value that is zero as a whole.
func dropZero(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if e = dropZero(e); e == nil {
				delete(t, k)
			} else {
				t[k] = e
			}
		}
		if len(t) == 0 {
			return nil
		}
		return t
	case []any:
		if len(t) == 0 {
			return nil
		}
		return t // elements keep their places: a zero inside a list matters
	case bool:
		if !t {
			return nil
		}
	case float64:
		if t == 0 {
			return nil
		}
	case string:
		if t == "" {
			return nil
		}
	case nil:
		return nil
	}
	return v
}

// cachePath is the record file of a trial and kind.
func (sp trialSpec) cachePath(trial int, k scn.Kind) string {
	label := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, sp.Label)
	return filepath.Join(sp.Cache, label, fmt.Sprintf("t%03d-%s.json", trial, k))
}

// loadTrial returns the record of a trial if one with the fingerprint is
// on disk. A missing file is no record; a record of another fingerprint is
// ignored (and will be overwritten); an unreadable one is an error.
func (sp trialSpec) loadTrial(trial int, k scn.Kind, fp string) (trialOutcome, bool, error) {
	if sp.Cache == "" || sp.Fresh {
		return trialOutcome{}, false, nil
	}
	path := sp.cachePath(trial, k)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return trialOutcome{}, false, nil
	}
	if err != nil {
		return trialOutcome{}, false, err
	}
	var c cachedTrial
	if err := json.Unmarshal(b, &c); err != nil {
		return trialOutcome{}, false, fmt.Errorf("experiment: %s: %w (delete it to fit the trial again)", path, err)
	}
	if c.Fingerprint != fp {
		return trialOutcome{}, false, nil
	}
	return c.Outcome, true, nil
}

// saveTrial writes a trial's record atomically.
func (sp trialSpec) saveTrial(trial int, k scn.Kind, fp string, o trialOutcome) error {
	if sp.Cache == "" {
		return nil
	}
	path := sp.cachePath(trial, k)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		return enc.Encode(cachedTrial{Fingerprint: fp, Outcome: o})
	})
}
