package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/internal/atomicfile"
)

// A learning model's versions folder holds one folder per snapshot,
// v000001, v000002, ...: model.scn (the model file, as scn predict reads
// it), stats.scnstats (its statistics, as scn update reads them) and
// version.json (versionInfo). A snapshot is written into a hidden
// temporary folder (each file written and synced by atomicfile), the
// folder synced, then renamed to its name and the versions folder synced:
// a folder with a snapshot's name is complete, whatever moment a crash
// came at, and the temporary folders a crash leaves are removed at the
// next start. Version 0 is the model and statistics files the server was
// started with (never copied).
const (
	snapModel = "model.scn"
	snapStats = "stats.scnstats"
	snapInfo  = "version.json"
)

// versionInfo describes a snapshot (version.json).
type versionInfo struct {
	Version     int       `json:"version"`
	Created     time.Time `json:"created"`
	Images      int       `json:"images"` // images the statistics hold
	Learnt      int       `json:"learnt"` // images learnt since the base model
	Forget      float64   `json:"forget"` // forgetting factor per image
	Classes     []string  `json:"classes,omitempty"`
	ModelSHA256 string    `json:"model_sha256"` // of model.scn
	BaseSHA256  string    `json:"base_sha256"`  // of the model file learning started from
	Parent      int       `json:"parent"`       // the version learning went on from
	Restores    *int      `json:"restores,omitempty"`
	Nodes       int       `json:"nodes,omitempty"` // the model's hidden nodes
	// Journal (--grow) is the journal file of the images learnt, in the
	// versions folder, of which the statistics hold the first
	// JournalRecords records; GrowMark is the records before the last
	// growth (the next one chooses its nodes on the images after).
	Journal        string `json:"journal,omitempty"`
	JournalRecords int    `json:"journal_records,omitempty"`
	GrowMark       int    `json:"grow_mark,omitempty"`
	Path           string `json:"path,omitempty"` // where it is (answers only)
}

var versionRE = regexp.MustCompile(`^v([0-9]{6,9})$`)

func versionDir(dir string, v int) string { return filepath.Join(dir, fmt.Sprintf("v%06d", v)) }

// listVersions returns the version numbers of the complete snapshots in
// dir, newest first, after removing the temporary folders of snapshots a
// crash interrupted (if clean).
func listVersions(dir string, clean bool) ([]int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var vs []int
	for _, e := range ents {
		if m := versionRE.FindStringSubmatch(e.Name()); m != nil && e.IsDir() {
			v, _ := strconv.Atoi(m[1])
			vs = append(vs, v)
		} else if clean && e.IsDir() && len(e.Name()) > 2 && e.Name()[:2] == ".v" {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(vs)))
	return vs, nil
}

// readVersionInfo reads a snapshot's version.json.
func readVersionInfo(dir string, v int) (*versionInfo, error) {
	b, err := os.ReadFile(filepath.Join(versionDir(dir, v), snapInfo))
	if err != nil {
		return nil, err
	}
	var vi versionInfo
	if err := json.Unmarshal(b, &vi); err != nil {
		return nil, fmt.Errorf("%s: %w", snapInfo, err)
	}
	if vi.Version != v {
		return nil, fmt.Errorf("%s says version %d in the folder of version %d", snapInfo, vi.Version, v)
	}
	return &vi, nil
}

// snapshotFiles is what a snapshot writes: the model file's bytes, and
// the statistics, written anew or linked from an earlier version's file.
type snapshotFiles struct {
	model     []byte
	stats     *scn.Stats
	statsFrom string       // a statistics file to link (or copy) instead
	modelFrom string       // a model file to link (or copy) instead of model
	sync      func() error // called first: the journal's records the snapshot covers made durable
}

// writeSnapshot writes version vi.Version into dir atomically (see
// above).
func writeSnapshot(dir string, vi *versionInfo, f snapshotFiles) (err error) {
	tmp, err := os.MkdirTemp(dir, fmt.Sprintf(".v%06d-", vi.Version))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if f.sync != nil {
		if err = f.sync(); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
	}
	if f.modelFrom != "" {
		err = linkOrCopy(f.modelFrom, filepath.Join(tmp, snapModel))
	} else {
		err = atomicfile.Write(filepath.Join(tmp, snapModel), func(w io.Writer) error {
			_, err := w.Write(f.model)
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("%s: %w", snapModel, err)
	}
	if f.statsFrom != "" {
		err = linkOrCopy(f.statsFrom, filepath.Join(tmp, snapStats))
	} else {
		err = f.stats.Save(filepath.Join(tmp, snapStats))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", snapStats, err)
	}
	info, err := json.MarshalIndent(vi, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(tmp, snapInfo), func(w io.Writer) error {
		_, err := w.Write(append(info, '\n'))
		return err
	}); err != nil {
		return fmt.Errorf("%s: %w", snapInfo, err)
	}
	if err := syncDir(tmp); err != nil {
		return err
	}
	if snapshotHook != nil {
		snapshotHook(tmp)
	}
	if err := os.Rename(tmp, versionDir(dir, vi.Version)); err != nil {
		return err
	}
	return syncDir(dir)
}

// snapshotHook, if set (by tests), is called with a snapshot's temporary
// folder once its files are written, before the rename that completes it.
var snapshotHook func(tmp string)

// linkOrCopy makes dst a hard link to src (files are never changed in
// place: a snapshot's files stay as written), or a copy of it where a
// link cannot be made (another file system).
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return atomicfile.Write(dst, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// syncDir makes a folder's entries durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, fs.ErrInvalid) { // file systems that cannot sync a folder
		err = nil
	}
	return err
}

// loadVersion reads snapshot v of dir: its information, model (checked
// against the recorded SHA-256) and statistics.
func loadVersion(name, dir string, v int) (*versionInfo, *model, *scn.Stats, error) {
	vi, err := readVersionInfo(dir, v)
	if err != nil {
		return nil, nil, nil, err
	}
	vd := versionDir(dir, v)
	md, err := readModel(name, filepath.Join(vd, snapModel))
	if err != nil {
		return nil, nil, nil, err
	}
	if md.sha256 != vi.ModelSHA256 {
		return nil, nil, nil, fmt.Errorf("%s: SHA-256 %s, %s records %s", snapModel, md.sha256, snapInfo, vi.ModelSHA256)
	}
	st, err := scn.LoadStats(filepath.Join(vd, snapStats))
	if err != nil {
		return nil, nil, nil, err
	}
	return vi, md, st, nil
}

// modelBytes returns a model's file bytes.
func modelBytes(m *scn.Model) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
