package dataset

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"sync"
	"testing/fstest"
	"time"
)

// Tar archives of class folders, streamed.
//
// ReadFolderTarGz reads an archive whole: every file into memory, then the
// set in ReadFolder's order (classes, then files, sorted by name), which
// need not be the archive's order (tar stores the files in the order the
// file system listed them). OpenFolderTarSource reads the same set shard
// by shard. Opening it reads the archive once to list its files (names and
// their places in the archive, no data kept): the class folders and the
// order of the set follow from the names exactly as ReadFolderTarGz makes
// them. A shard then needs its images' bytes, which one pass over the
// archive gives, in the archive's order, whatever their order in the set:
// the pass reads on from where the last one stopped when the shard's
// files all come later in the archive, and keeps the files of the next
// shards it meets on its way (up to tarReadAhead bytes of them); it
// starts again from the beginning only for a file met before and not
// kept.
//
// What it costs: a plain tar file skips the files it does not need by
// seeking (a pass from the beginning costs little); a gzip archive can
// only be read in order, so it is decompressed from its start once for
// the listing, once for the first image, and, per pass over the set, once
// when its files are in the set's order (tar --sort=name) or the
// read-ahead holds the files that come early, and at most once per shard
// (DefaultChunk images) otherwise: for the 35800 files of a 12 MB archive
// of 28 x 28 PNGs, a decompression takes a fraction of a second. Memory:
// the list of names, one shard's files as stored (compressed images) and
// the read-ahead.

// OpenFolderTarSource opens the class folders below dir in a tar archive
// (gzip-compressed or not: detected by content) as a stream of shards
// (FolderSource): the set ReadFolderTarGz reads, shard by shard. Errors
// name the archive and the file in it ("archive:path"); an archive that
// changes between passes is an error.
func OpenFolderTarSource(archive, dir string, p Preprocess) (*FolderSource, error) {
	t, err := listTar(archive)
	if err != nil {
		return nil, err
	}
	s, err := openFolderSource(t, path.Clean(dir), p, func(name string) string { return archive + ":" + name })
	t.done() // the pass that read the first image
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	s.root = tarWhere(archive, dir)
	return s, nil
}

// tarFiles is the file system of a tar archive's files as FolderSource
// reads it: the listing from the names alone, and the files' bytes
// fetched a shard at a time (prefetch) by passes over the archive.
type tarFiles struct {
	archive string
	size    int64     // the archive's size and modification time when
	mod     time.Time // listed: another is a changed archive
	gz      bool      // gzip-compressed
	list    fstest.MapFS
	ord     map[string]int // each file's entry ordinal (the last entry of its name, as tarFS keeps)
	byOrd   map[int]string // the file at each of those ordinals
	budget  int64          // bytes of files kept ahead of the shard (tarReadAhead)

	mu     sync.Mutex
	cache  map[string][]byte // the files of the last prefetch
	cur    *tarCursor
	passes int // passes over the archive started (tests)
}

// tarCursor is a pass over the archive: tr's next entry is ordinal next.
type tarCursor struct {
	f    *os.File
	tr   *tar.Reader
	next int
}

// listTar reads the archive once and lists its files.
func listTar(archive string) (*tarFiles, error) {
	f, err := openFile(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	t := &tarFiles{archive: archive, size: st.Size(), mod: st.ModTime(), list: fstest.MapFS{}, ord: map[string]int{}, byOrd: map[int]string{}, budget: tarReadAhead}
	var magic [2]byte
	n, _ := f.ReadAt(magic[:], 0)
	t.gz = n == 2 && magic[0] == 0x1f && magic[1] == 0x8b
	err = walkTar(f, func(k int, name string, _ *tar.Header, _ io.Reader) error {
		t.list[name] = &fstest.MapFile{}
		t.ord[name] = k
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", archive, err)
	}
	for n, k := range t.ord {
		t.byOrd[k] = n
	}
	return t, nil
}

// tarReadAhead is the bytes of files (as stored: compressed images) a
// streamed archive keeps ahead of the shard it reads.
const tarReadAhead = 64 << 20

// Open opens a file, from the last prefetch or else by a pass of its own,
// or a folder of the listing.
func (t *tarFiles) Open(name string) (fs.File, error) {
	if _, ok := t.ord[name]; !ok {
		return t.list.Open(name)
	}
	t.mu.Lock()
	b, ok := t.cache[name]
	t.mu.Unlock()
	if !ok {
		if err := t.prefetch([]string{name}, nil); err != nil {
			return nil, err
		}
		t.mu.Lock()
		b = t.cache[name]
		t.mu.Unlock()
	}
	return fstest.MapFS{name: &fstest.MapFile{Data: b}}.Open(name)
}

// ReadDir lists a folder of the archive.
func (t *tarFiles) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(t.list, name) }

// prefetch makes the files names (paths of the listing) ready for Open,
// reading those it does not hold in one pass over the archive, in the
// archive's order; the files of ahead (those the next shards need, in
// order) that the pass meets on its way are kept too, as long as all
// that is kept stays within t.budget bytes, and every other file is
// dropped. With an archive in the set's order the pass goes on from where
// the last one stopped; otherwise a file met before is held already if
// the budget allowed it, so that a pass from the beginning is needed only
// when it did not.
func (t *tarFiles) prefetch(names, ahead []string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	need := make(map[string]bool, len(names))
	for _, n := range names {
		if _, ok := t.ord[n]; !ok {
			return fmt.Errorf("%s:%s: %w", t.archive, n, fs.ErrNotExist)
		}
		need[n] = true
	}
	later := make(map[string]bool, len(ahead))
	for _, n := range ahead {
		if !need[n] {
			later[n] = true
		}
	}
	kept := int64(0)
	for n, b := range t.cache {
		if !need[n] && !later[n] {
			delete(t.cache, n)
		} else {
			kept += int64(len(b))
		}
	}
	if t.cache == nil {
		t.cache = map[string][]byte{}
	}
	var ords []int
	for n := range need {
		if _, ok := t.cache[n]; !ok {
			ords = append(ords, t.ord[n])
		}
	}
	if len(ords) == 0 {
		return nil
	}
	slices.Sort(ords)
	if t.cur == nil || ords[0] < t.cur.next {
		if err := t.restart(); err != nil {
			return err
		}
	}
	c := t.cur
	last := ords[len(ords)-1]
	for c.next <= last {
		k := c.next
		h, err := c.tr.Next()
		if err != nil {
			t.close()
			if err == io.EOF {
				return fmt.Errorf("%s: %w: the archive ends before entry %d (changed since it was opened?)", t.archive, ErrFormat, k)
			}
			return fmt.Errorf("%s: %w: tar, entry %d: %v", t.archive, ErrFormat, k, err)
		}
		c.next++
		name, ok := tarName(h)
		if at, listed := t.ord[name]; !ok || !listed || at != k {
			if want, listed := t.byOrd[k]; listed && want != name {
				t.close()
				return fmt.Errorf("%s: %w: entry %d is %q, not %s: the archive changed since it was opened", t.archive, ErrFormat, k, h.Name, want)
			}
			continue // not a file of the set, or an earlier copy of one
		}
		if _, held := t.cache[name]; held || !(need[name] || later[name] && kept+h.Size <= t.budget) {
			continue
		}
		b := make([]byte, h.Size)
		if _, err := io.ReadFull(c.tr, b); err != nil {
			t.close()
			return fmt.Errorf("%s:%s: %w: tar: %v", t.archive, name, ErrFormat, err)
		}
		t.cache[name] = b
		if !need[name] {
			kept += h.Size
		}
	}
	return nil
}

// restart starts a pass from the beginning of the archive, after checking
// that it is the archive listed.
func (t *tarFiles) restart() error {
	t.close()
	f, err := openFile(t.archive)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil || st.Size() != t.size || !st.ModTime().Equal(t.mod) {
		f.Close()
		return fmt.Errorf("%s: %w: the archive changed since it was opened", t.archive, ErrFormat)
	}
	var r io.Reader = f // a plain tar file: tar.Reader seeks over what it skips
	if t.gz {
		z, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return fmt.Errorf("%s: %w: gzip: %v", t.archive, ErrFormat, err)
		}
		r = z
	}
	t.cur = &tarCursor{f: f, tr: tar.NewReader(r)}
	t.passes++
	return nil
}

// close ends the current pass.
func (t *tarFiles) close() {
	if t.cur != nil {
		t.cur.f.Close()
		t.cur = nil
	}
}

// done ends the current pass (closing the archive) and drops the files
// kept: the next prefetch starts again from the beginning.
func (t *tarFiles) done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.close()
	t.cache = nil
}
