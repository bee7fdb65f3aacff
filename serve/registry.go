package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// nameRE is what a model name may be.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ParseModelArg splits a command-line model argument, PATH or NAME=PATH,
// into the model's name (by default the file name without its extension)
// and its path.
func ParseModelArg(arg string) (name, path string, err error) {
	if n, p, ok := strings.Cut(arg, "="); ok && nameRE.MatchString(n) && p != "" {
		return n, p, nil
	}
	path = arg
	base := filepath.Base(path)
	name = strings.TrimSuffix(base, filepath.Ext(base))
	if !nameRE.MatchString(name) {
		return "", "", fmt.Errorf("serve: %s: cannot make a model name of %q (letters, digits, '.', '_', '-'); give NAME=PATH", arg, name)
	}
	return name, path, nil
}

// Load reads the model file at path and serves it as name, replacing a
// model of that name if there is one.
func (s *Server) Load(name, path string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("serve: model name %q: want letters, digits, '.', '_' or '-', at most 128", name)
	}
	md, err := readModel(name, path)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.models[name] = md
	s.mu.Unlock()
	s.log.Info("model loaded", "name", name, "path", path, "kind", md.m.Kind.Title(), "nodes", md.m.Nodes(), "sha256", md.sha256)
	return nil
}

// readModel reads and checks a model file, with its checksum.
func readModel(name, path string) (*model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	m, err := scn.Read(io.TeeReader(f, h))
	if err != nil {
		return nil, fmt.Errorf("serve: %s: %w", path, err)
	}
	if _, err := io.Copy(h, f); err != nil { // scn.Read checks for trailing bytes; hash all the same
		return nil, fmt.Errorf("serve: %s: %w", path, err)
	}
	prep, err := dataset.RecordedPreprocess(m)
	if err != nil {
		return nil, fmt.Errorf("serve: %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	return &model{
		name: name, path: path, m: m, pred: scn.NewPredictor(m), prep: prep, changed: make(chan struct{}, 1),
		plain:  prep.Identity(),
		sha256: hex.EncodeToString(h.Sum(nil)), size: st.Size(), loaded: time.Now().UTC(),
	}, nil
}

// Reload reads every model's file again. A model whose file is unchanged
// (same SHA-256) stays as it is; one whose file no longer reads keeps
// being served as it was, and the error says why (it is also logged).
// Requests in flight finish with the model they started with.
func (s *Server) Reload() error {
	s.mu.RLock()
	old := make([]*model, 0, len(s.models))
	for _, md := range s.models {
		old = append(old, md)
	}
	s.mu.RUnlock()
	sort.Slice(old, func(i, j int) bool { return old[i].name < old[j].name })
	var errs []error
	for _, md := range old {
		if md.learner != nil {
			continue // a learning model changes by learning and rollback only
		}
		nm, err := readModel(md.name, md.path)
		if err != nil {
			s.log.Error("reload failed; keeping the model loaded before", "name", md.name, "path", md.path, "sha256", md.sha256, "err", err)
			s.metrics.reloads.WithLabelValues("failed").Inc()
			errs = append(errs, err)
			continue
		}
		if nm.sha256 == md.sha256 {
			s.metrics.reloads.WithLabelValues("unchanged").Inc()
			continue
		}
		s.mu.Lock()
		if s.models[md.name] == md {
			s.models[md.name] = nm
		}
		s.mu.Unlock()
		s.metrics.reloads.WithLabelValues("replaced").Inc()
		s.log.Info("model reloaded", "name", md.name, "path", md.path, "sha256", nm.sha256, "was", md.sha256)
	}
	return errors.Join(errs...)
}

// Models returns the names of the loaded models, sorted.
func (s *Server) Models() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, 0, len(s.models))
	for n := range s.models {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ModelBytes returns the total size of the model files being served (as
// loaded: a reload that failed leaves the old file's size).
func (s *Server) ModelBytes() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var n int64
	for _, md := range s.models {
		n += md.size
	}
	return n
}

func (s *Server) lookup(name string) *model {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.models[name]
}

// modelInfo is what GET /v1/models says of a model.
type modelInfo struct {
	Name         string             `json:"name"`
	Version      string             `json:"version"`
	Path         string             `json:"path"`
	SHA256       string             `json:"sha256"`
	SizeBytes    int64              `json:"size_bytes"`
	LoadedAt     time.Time          `json:"loaded_at"`
	Kind         string             `json:"kind"`
	Activation   string             `json:"activation"`
	Rows         int                `json:"rows"`
	Cols         int                `json:"cols"`
	Channels     int                `json:"channels,omitempty"` // input planes of a colour model (absent: grey)
	Outputs      int                `json:"outputs"`
	Task         string             `json:"task"`
	Classes      []string           `json:"classes,omitempty"`
	Nodes        int                `json:"nodes"`
	Parameters   int                `json:"parameters"`
	Preprocess   dataset.Preprocess `json:"preprocess"`
	InputRows    int                `json:"input_rows,omitempty"` // the image size preprocessing wants, 0: any
	TrainSamples int                `json:"train_samples,omitempty"`
	TrainRMSE    float64            `json:"train_rmse,omitempty"`
	calibInfo
}

func (md *model) info() modelInfo {
	m := md.m
	task := "regression"
	if m.IsClassifier() {
		task = "classification"
	}
	in := modelInfo{
		Name: md.name, Version: md.version(), Path: md.path, SHA256: md.sha256, SizeBytes: md.size,
		LoadedAt: md.loaded, Kind: m.Kind.Title(), Activation: m.Activation.String(),
		Rows: m.Rows, Cols: m.Cols, Channels: m.Channels, Outputs: m.M, Task: task, Classes: m.Classes,
		Nodes: m.Nodes(), Parameters: m.ParamCount(), Preprocess: md.prep,
		TrainSamples: m.Summary.Samples,
	}
	if !math.IsNaN(m.Summary.TrainRMSE) && !math.IsInf(m.Summary.TrainRMSE, 0) {
		in.TrainRMSE = m.Summary.TrainRMSE
	}
	in.calibInfo = infoCalib(m)
	return in
}

// version names the model file's content: the first 12 hex digits of its
// SHA-256.
func (md *model) version() string { return md.sha256[:12] }
