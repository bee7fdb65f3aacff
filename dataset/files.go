package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
)

// A Derived data set is one the project builds from others (rotated
// digits, a per-subject split, occluded faces): its parts, such as "train"
// and "test", and a manifest that says how it was made. Write puts it in a
// folder as ordinary files (gzip IDX, as MNIST is distributed, plus
// manifest.json and README.md) so that other programs can use it, and
// ReadDerived reads it back.
type Derived struct {
	Manifest Manifest
	Parts    []Part
}

// Part is one named part of a derived set.
type Part struct {
	Name string
	Set  *Set
}

// Manifest describes a derived data set: what it is, how to make it again
// (generator, seed, parameters), where its inputs come from and under what
// terms, and its files.
type Manifest struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Generator   string            `json:"generator"`
	Seed        uint64            `json:"seed"`
	Params      map[string]string `json:"params,omitempty"`
	Sources     []string          `json:"sources"`
	Occlusions  []Occlusion       `json:"occlusions,omitempty"` // blocks in the train part, if any
	Parts       []PartInfo        `json:"parts"`
}

// PartInfo describes a part's files in a manifest.
type PartInfo struct {
	Name      string     `json:"name"`
	Count     int        `json:"count"`
	Rows      int        `json:"rows"`
	Cols      int        `json:"cols"`
	Channels  int        `json:"channels,omitempty"` // planes per image, if more than one
	Classes   []string   `json:"classes,omitempty"`
	TargetDim int        `json:"target_dim,omitempty"`
	Source    string     `json:"source"`
	Files     []FileInfo `json:"files"`
}

// FileInfo is one file of a part.
type FileInfo struct {
	Role   string `json:"role"` // images, labels, targets or origin
	Name   string `json:"name"`
	Format string `json:"format"`
	SHA256 string `json:"sha256"` // of the decompressed IDX bytes
}

// Part returns the part called name, or nil.
func (d *Derived) Part(name string) *Set {
	for _, p := range d.Parts {
		if p.Name == name {
			return p.Set
		}
	}
	return nil
}

// partName is what a part may be called (it becomes part of file names).
var partName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// manifestFile and readmeFile are the names Write gives them.
const (
	manifestFile = "manifest.json"
	readmeFile   = "README.md"
)

// Write writes the derived set into dir (made if absent): for each part
// p, p-images-idx3-ubyte.gz (pixels rounded to bytes), p-labels-idx1-ubyte.gz
// (if labelled), p-targets-idx1-double.gz or p-targets-idx2-double.gz (real
// targets as float64, if any), p-origin-idx1-int.gz (the index of each
// image in the set it was drawn from, if known); then manifest.json, which
// Write completes with the parts' files and checksums, and README.md. Every
// file is written atomically.
func (d *Derived) Write(dir string) error {
	if len(d.Parts) == 0 {
		return fmt.Errorf("dataset: derived set %q has no parts", d.Manifest.Name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	m := d.Manifest
	m.Parts = nil
	seen := map[string]bool{}
	for _, p := range d.Parts {
		if !partName.MatchString(p.Name) || seen[p.Name] {
			return fmt.Errorf("dataset: part name %q: want a unique name of lower-case letters, digits, - and _", p.Name)
		}
		seen[p.Name] = true
		s := p.Set
		if err := s.Validate(); err != nil {
			return fmt.Errorf("dataset: part %s: %w", p.Name, err)
		}
		info := PartInfo{Name: p.Name, Count: s.Len(), Rows: s.Rows, Cols: s.Cols, Classes: s.Classes, TargetDim: s.TargetDim, Source: s.Source}
		if s.Labels == nil {
			info.Classes = nil
		}
		files := []partFile{{"images", "images-idx3-ubyte.gz", "IDX unsigned byte, N x rows x cols, 0 black to 255 white; gzip", idxImageBytes(s)}}
		if s.Chans() > 1 {
			info.Channels = s.Chans()
			files[0].name = "images-idx4-ubyte.gz"
			files[0].format = fmt.Sprintf("IDX unsigned byte, N x %d x rows x cols (planes red, green, blue for 3), 0 dark to 255 bright; gzip", s.Chans())
		}
		if s.Labels != nil {
			lab, err := idxLabelBytes(s.Labels, p.Name+" labels")
			if err != nil {
				return err
			}
			files = append(files, partFile{"labels", "labels-idx1-ubyte.gz", "IDX unsigned byte, N class indices into classes; gzip", lab})
		}
		if s.Targets != nil {
			name, shape := "targets-idx2-double.gz", "N x target_dim"
			if s.TargetDim == 1 {
				name, shape = "targets-idx1-double.gz", "N"
			}
			files = append(files, partFile{"targets", name, "IDX float64 (type 0x0E), " + shape + " real targets; gzip", idxFloat64Bytes(s.Targets, s.Len(), s.TargetDim)})
		}
		if s.Origin != nil {
			files = append(files, partFile{"origin", "origin-idx1-int.gz", "IDX int32 (type 0x0C), N indices of the images in the source set; gzip", idxInt32Bytes(s.Origin)})
		}
		for _, f := range files {
			name := p.Name + "-" + f.name
			if err := writeAtomic(filepath.Join(dir, name), f.data); err != nil {
				return err
			}
			sum := sha256.Sum256(f.data)
			info.Files = append(info.Files, FileInfo{Role: f.role, Name: name, Format: f.format, SHA256: hex.EncodeToString(sum[:])})
		}
		m.Parts = append(m.Parts, info)
	}
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	if err := writeAtomic(filepath.Join(dir, manifestFile), append(js, '\n')); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, readmeFile), []byte(m.readme())); err != nil {
		return err
	}
	d.Manifest = m
	return nil
}

// partFile is a file Write makes for a part.
type partFile struct {
	role, name, format string
	data               []byte
}

// readme renders the manifest for people.
func (m Manifest) readme() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", m.Name, m.Description)
	fmt.Fprintf(&b, "Made by %s with seed %d", m.Generator, m.Seed)
	if len(m.Params) > 0 {
		var keys []string
		for k := range m.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var kv []string
		for _, k := range keys {
			kv = append(kv, k+" = "+m.Params[k])
		}
		fmt.Fprintf(&b, " and %s", strings.Join(kv, ", "))
	}
	b.WriteString("; the same inputs, seed and parameters give the same files.\n\n## Sources and terms\n\n")
	for _, s := range m.Sources {
		fmt.Fprintf(&b, "- %s\n", s)
	}
	b.WriteString("\nWhoever uses these files must respect the terms of every source above.\n\n## Files\n\n")
	b.WriteString("| part | images | size (rows x cols) | file | format | SHA-256 of the decompressed file |\n|---|---|---|---|---|---|\n")
	for _, p := range m.Parts {
		for _, f := range p.Files {
			size := fmt.Sprintf("%d x %d", p.Rows, p.Cols)
			if p.Channels > 1 {
				size += fmt.Sprintf(", %d planes", p.Channels)
			}
			fmt.Fprintf(&b, "| %s | %d | %s | `%s` | %s | `%s` |\n", p.Name, p.Count, size, f.Name, f.Format, f.SHA256)
		}
	}
	for _, p := range m.Parts {
		if len(p.Classes) > 0 {
			fmt.Fprintf(&b, "\nClasses of %s (label 0 first): %s\n", p.Name, strings.Join(p.Classes, ", "))
		}
	}
	if len(m.Occlusions) > 0 {
		fmt.Fprintf(&b, "\n%d training images are occluded; manifest.json lists each block (image index, top row, left column, size).\n", len(m.Occlusions))
	}
	b.WriteString("\nIDX is the format of MNIST (http://yann.lecun.com/exdb/mnist/): a big-endian header " +
		"(two zero bytes, the element type, the number of dimensions, then each dimension as a 32-bit integer) " +
		"followed by the elements, row-major. With this project: `dataset.ReadDerived(folder)`; " +
		"with Python: gzip.open, then numpy.frombuffer after the header.\n\nmanifest.json holds the same information for programs.\n")
	return b.String()
}

// ReadDerived reads a derived set that Write put in dir, checking every
// file against the manifest (shape, count, checksum).
func ReadDerived(dir string) (*Derived, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	d := &Derived{Manifest: m}
	for _, info := range d.Manifest.Parts {
		s, err := readPart(dir, info)
		if err != nil {
			return nil, err
		}
		d.Parts = append(d.Parts, Part{Name: info.Name, Set: s})
	}
	return d, nil
}

// readManifest reads the manifest of a derived set in dir.
func readManifest(dir string) (Manifest, error) {
	var m Manifest
	mp := filepath.Join(dir, manifestFile)
	js, err := os.ReadFile(mp)
	if err != nil {
		return m, fmt.Errorf("dataset: %w", err)
	}
	if err := json.Unmarshal(js, &m); err != nil {
		return m, fmt.Errorf("dataset: %s: %w: %v", mp, ErrFormat, err)
	}
	if len(m.Parts) == 0 {
		return m, fmt.Errorf("dataset: %s: %w: no parts", mp, ErrFormat)
	}
	return m, nil
}

// readPart reads one part's files and checks them against info.
func readPart(dir string, info PartInfo) (*Set, error) {
	if !partName.MatchString(info.Name) {
		return nil, fmt.Errorf("dataset: %s: %w: part name %q", filepath.Join(dir, manifestFile), ErrFormat, info.Name)
	}
	s := &Set{Source: info.Source}
	roles := map[string]bool{}
	for _, f := range info.Files {
		if roles[f.Role] || filepath.Base(f.Name) != f.Name || !strings.HasPrefix(f.Name, info.Name+"-") {
			return nil, fmt.Errorf("dataset: %s: %w: part %s: file %q (%s)", filepath.Join(dir, manifestFile), ErrFormat, info.Name, f.Name, f.Role)
		}
		roles[f.Role] = true
		p := filepath.Join(dir, f.Name)
		x, sum, err := readIDXFileHashed(p)
		if err != nil {
			return nil, err
		}
		if sum != f.SHA256 {
			return nil, fmt.Errorf("dataset: %s: %w: SHA-256 %s, the manifest says %s", p, ErrFormat, sum, f.SHA256)
		}
		switch f.Role {
		case "images":
			img, err := idxSet(x, nil)
			if err != nil {
				return nil, fmt.Errorf("dataset: %s: %w", p, err)
			}
			if img.Len() != info.Count || img.Rows != info.Rows || img.Cols != info.Cols || img.Chans() != max(info.Channels, 1) {
				return nil, fmt.Errorf("dataset: %s: %w: %d images of %d x %d x %d, the manifest says %d of %d x %d x %d", p, ErrFormat, img.Len(), img.Chans(), img.Rows, img.Cols, info.Count, max(info.Channels, 1), info.Rows, info.Cols)
			}
			s.Rows, s.Cols, s.Channels, s.Pix = img.Rows, img.Cols, img.Channels, img.Pix
		case "labels":
			if x.kind != idxUbyte || len(x.dims) != 1 {
				return nil, fmt.Errorf("dataset: %s: %w: labels must be unsigned bytes of one dimension", p, ErrFormat)
			}
			s.Labels = make([]int, len(x.data))
			for i, v := range x.data {
				s.Labels[i] = int(v)
			}
			s.Classes = info.Classes
		case "targets":
			if s.Targets, s.TargetDim, err = idxTargets(x, p); err != nil {
				return nil, err
			}
		case "origin":
			if s.Origin, err = idxInts(x); err != nil {
				return nil, fmt.Errorf("dataset: %s: %w", p, err)
			}
		default:
			return nil, fmt.Errorf("dataset: %s: %w: unknown role %q", filepath.Join(dir, manifestFile), ErrFormat, f.Role)
		}
	}
	if !roles["images"] {
		return nil, fmt.Errorf("dataset: %s: %w: part %s has no images", filepath.Join(dir, manifestFile), ErrFormat, info.Name)
	}
	if s.Targets != nil && s.TargetDim != info.TargetDim {
		return nil, fmt.Errorf("dataset: %s: %w: part %s: targets of dimension %d, the manifest says %d", filepath.Join(dir, manifestFile), ErrFormat, info.Name, s.TargetDim, info.TargetDim)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("dataset: %s: part %s: %w", dir, info.Name, errors.Join(ErrFormat, err))
	}
	return s, nil
}

// generator names a function of this package for a manifest.
func generator(fn string) string {
	return "github.com/scn2d/scn/dataset." + fn + " (" + runtime.Version() + ")"
}

// Quantize rounds every pixel of s to a multiple of 1/255, what an IDX
// file holds, so that a set and the files Write makes of it are the same.
func Quantize(s *Set) {
	for i, v := range s.Pix {
		s.Pix[i] = float32(pixelByte(v)) / 255
	}
}
