package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// toyFaces returns a labelled set of classes x per images of 14 x 12 with
// distinct smooth content.
func toyFaces(classes, per int) *Set {
	s := &Set{Rows: 14, Cols: 12, Source: "toy faces"}
	r := rand.New(rand.NewPCG(7, 7))
	for c := 0; c < classes; c++ {
		s.Classes = append(s.Classes, fmt.Sprintf("s%d", c+1))
		for i := 0; i < per; i++ {
			a := r.Float64()
			for y := 0; y < s.Rows; y++ {
				for x := 0; x < s.Cols; x++ {
					s.Pix = append(s.Pix, float32(0.5+0.4*math.Sin(a*10+float64(y)/3+float64(c*x)/7)))
				}
			}
			s.Labels = append(s.Labels, c)
		}
	}
	return s
}

// sameSet reports how two sets differ, or "".
func sameSet(a, b *Set) string {
	switch {
	case a.Rows != b.Rows || a.Cols != b.Cols || a.Len() != b.Len() || a.Chans() != b.Chans():
		return fmt.Sprintf("%d images of %d x %d x %d vs %d of %d x %d x %d", a.Len(), a.Chans(), a.Rows, a.Cols, b.Len(), b.Chans(), b.Rows, b.Cols)
	case !reflect.DeepEqual(a.Pix, b.Pix):
		return "pixels differ"
	case !reflect.DeepEqual(a.Labels, b.Labels):
		return "labels differ"
	case !reflect.DeepEqual(a.Classes, b.Classes) && a.Labels != nil:
		return fmt.Sprintf("classes %v vs %v", a.Classes, b.Classes)
	case !reflect.DeepEqual(a.Targets, b.Targets) || a.TargetDim != b.TargetDim:
		return "targets differ"
	case !reflect.DeepEqual(a.Origin, b.Origin):
		return "origins differ"
	case a.Source != b.Source:
		return fmt.Sprintf("source %q vs %q", a.Source, b.Source)
	}
	return ""
}

// builtDerived builds the three derived sets from the built-in digits and
// toy faces.
func builtDerived(t *testing.T, seed uint64) map[string]*Derived {
	t.Helper()
	train, test, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	faces := toyFaces(6, 10)
	rot, err := BuildRotated(train, test, 300, 200, seed)
	if err != nil {
		t.Fatal(err)
	}
	split, err := BuildFaceSplit(faces, 5, seed)
	if err != nil {
		t.Fatal(err)
	}
	occ, err := BuildOccluded(faces, 5, 7, 6, seed)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Derived{"rotated": rot, "split": split, "occluded": occ}
}

func TestDerivedSetsRoundTrip(t *testing.T) {
	root := t.TempDir()
	for name, d := range builtDerived(t, 11) {
		dir := filepath.Join(root, name)
		if err := d.Write(dir); err != nil {
			t.Fatal(err)
		}
		back, err := ReadDerived(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Manifest, d.Manifest) {
			t.Errorf("%s: manifest changed:\n%+v\n%+v", name, back.Manifest, d.Manifest)
		}
		if len(back.Parts) != 2 || back.Parts[0].Name != "train" || back.Parts[1].Name != "test" {
			t.Fatalf("%s: parts %v", name, back.Parts)
		}
		for i, p := range d.Parts {
			if diff := sameSet(p.Set, back.Parts[i].Set); diff != "" {
				t.Errorf("%s %s: %s", name, p.Name, diff)
			}
		}
		readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
		for _, want := range []string{"seed 11", d.Manifest.Sources[0], "train-images-idx3-ubyte.gz", "test-origin-idx1-int.gz", d.Manifest.Generator} {
			if !strings.Contains(string(readme), want) {
				t.Errorf("%s: README.md does not mention %q", name, want)
			}
		}
		js, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
		var m map[string]any
		if err := json.Unmarshal(js, &m); err != nil || m["seed"] != 11.0 {
			t.Errorf("%s: manifest.json %v, seed %v", name, err, m["seed"])
		}
	}
}

func TestDerivedFiles(t *testing.T) {
	d := builtDerived(t, 3)
	dir := t.TempDir()
	if err := d["rotated"].Write(dir); err != nil {
		t.Fatal(err)
	}
	// Ordinary files that the plain readers take.
	tr, err := ReadIDX(filepath.Join(dir, "train-images-idx3-ubyte.gz"), filepath.Join(dir, "train-labels-idx1-ubyte.gz"))
	if err != nil || tr.Len() != 300 {
		t.Fatalf("%v", err)
	}
	angles, dim, err := ReadIDXTargets(filepath.Join(dir, "train-targets-idx1-double.gz"))
	if err != nil || dim != 1 || !reflect.DeepEqual(angles, d["rotated"].Part("train").Targets) {
		t.Fatalf("angles: %v (float64, exact)", err)
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := "[README.md manifest.json test-images-idx3-ubyte.gz test-labels-idx1-ubyte.gz test-origin-idx1-int.gz test-targets-idx1-double.gz " +
		"train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz train-origin-idx1-int.gz train-targets-idx1-double.gz]"
	if fmt.Sprint(names) != want {
		t.Errorf("files %v\nwant %s", names, want)
	}
	// The same seed gives the same files, another seed other ones.
	again := t.TempDir()
	builtDerived(t, 3)["rotated"].Write(again)
	other := t.TempDir()
	builtDerived(t, 4)["rotated"].Write(other)
	m1, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	m2, _ := os.ReadFile(filepath.Join(again, "manifest.json"))
	m3, _ := os.ReadFile(filepath.Join(other, "manifest.json"))
	if string(m1) != string(m2) {
		t.Error("the same seed gave another manifest")
	}
	if strings.Contains(string(m3), d["rotated"].Manifest.Parts[0].Files[0].SHA256) {
		t.Error("another seed gave the same images")
	}
}

func TestReadDerivedRefusals(t *testing.T) {
	d := builtDerived(t, 5)["split"]
	fresh := func() string {
		dir := t.TempDir()
		if err := d.Write(dir); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	editManifest := func(dir string, f func(m *Manifest)) {
		var m Manifest
		js, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
		json.Unmarshal(js, &m)
		f(&m)
		js, _ = json.Marshal(m)
		os.WriteFile(filepath.Join(dir, "manifest.json"), js, 0o644)
	}
	dir := fresh()
	// another file's content under a listed name: the checksum catches it
	other, _ := os.ReadFile(filepath.Join(dir, "test-images-idx3-ubyte.gz"))
	p := filepath.Join(dir, "train-images-idx3-ubyte.gz")
	os.WriteFile(p, other, 0o644)
	_, err := ReadDerived(dir)
	wantErr(t, "swapped file", err, p, "SHA-256")

	dir = fresh()
	p = filepath.Join(dir, "test-labels-idx1-ubyte.gz")
	os.Remove(p)
	_, err = ReadDerived(dir)
	wantErr(t, "missing file", err, p)

	dir = fresh()
	editManifest(dir, func(m *Manifest) { m.Parts[0].Count = 31 })
	_, err = ReadDerived(dir)
	wantErr(t, "count", err, filepath.Join(dir, "train-images-idx3-ubyte.gz"), "31")

	dir = fresh()
	editManifest(dir, func(m *Manifest) { m.Parts[1].Files[0].Name = "../../etc/passwd" })
	_, err = ReadDerived(dir)
	wantErr(t, "path outside", err, "manifest.json", "passwd")

	dir = fresh()
	editManifest(dir, func(m *Manifest) { m.Parts[0].Classes = m.Parts[0].Classes[:2] })
	_, err = ReadDerived(dir)
	wantErr(t, "classes", err, dir, "outside 2 classes")

	dir = fresh()
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte("{"), 0o644)
	_, err = ReadDerived(dir)
	wantErr(t, "bad json", err, filepath.Join(dir, "manifest.json"))
	if !errors.Is(err, ErrFormat) {
		t.Errorf("bad json: %v is not ErrFormat", err)
	}

	_, err = ReadDerived(filepath.Join(dir, "absent"))
	wantErr(t, "absent", err, "absent")

	bad := &Derived{Parts: []Part{{"Train/x", d.Parts[0].Set}}}
	if err := bad.Write(t.TempDir()); err == nil {
		t.Error("a part name with a slash was accepted")
	}
}

func TestRotatedSetComesFromItsSources(t *testing.T) {
	train, test, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	d, err := BuildRotated(train, test, 400, 300, 9)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		part string
		src  *Set
	}{{"train", train}, {"test", test}} {
		s := d.Part(c.part)
		if s.Len() != map[string]int{"train": 400, "test": 300}[c.part] || s.TargetDim != 1 || !reflect.DeepEqual(s.Classes, c.src.Classes) {
			t.Fatalf("%s: %d images, target dimension %d", c.part, s.Len(), s.TargetDim)
		}
		seen := map[int]bool{}
		for i := 0; i < s.Len(); i++ {
			o := s.Origin[i]
			if o < 0 || o >= c.src.Len() || seen[o] {
				t.Fatalf("%s image %d: origin %d (drawn twice or outside the source)", c.part, i, o)
			}
			seen[o] = true
			if s.Labels[i] != c.src.Labels[o] {
				t.Fatalf("%s image %d: label %d, the source image's is %d", c.part, i, s.Labels[i], c.src.Labels[o])
			}
			a := s.Targets[i]
			want := Rotate(c.src.Image(o), 28, 28, a)
			for j, v := range s.Image(i) {
				if math.Abs(float64(v-want[j])) > 0.5/255+1e-6 {
					t.Fatalf("%s image %d is not source image %d rotated by %.2f degrees", c.part, i, o, a)
				}
			}
		}
	}
}

func TestSplitPerClass(t *testing.T) {
	faces := toyFaces(7, 10)
	tr, te, err := SplitPerClass(faces, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Len() != 28 || te.Len() != 42 {
		t.Fatalf("%d / %d", tr.Len(), te.Len())
	}
	for c, n := range tr.ClassCounts() {
		if n != 4 || te.ClassCounts()[c] != 6 {
			t.Errorf("class %d: %d training, %d test images", c, n, te.ClassCounts()[c])
		}
	}
	all := append(append([]int(nil), tr.Origin...), te.Origin...)
	sort.Ints(all)
	for i, o := range all {
		if o != i {
			t.Fatalf("train and test do not partition the set: %v", all)
		}
	}
	for i, o := range tr.Origin {
		if tr.Labels[i] != faces.Labels[o] || !reflect.DeepEqual(tr.Image(i), faces.Image(o)) {
			t.Fatalf("training image %d is not image %d", i, o)
		}
	}
	tr2, _, _ := SplitPerClass(faces, 4, 1)
	tr3, _, _ := SplitPerClass(faces, 4, 2)
	if !reflect.DeepEqual(tr.Origin, tr2.Origin) || reflect.DeepEqual(tr.Origin, tr3.Origin) {
		t.Error("the split does not follow the seed")
	}
	// Subjects are shuffled independently: over many seeds every image
	// lands in training about perClass/per of the time.
	counts := make([]int, faces.Len())
	for seed := uint64(0); seed < 400; seed++ {
		tr, _, _ := SplitPerClass(faces, 4, seed)
		for _, o := range tr.Origin {
			counts[o]++
		}
	}
	for i, n := range counts {
		if n < 120 || n > 200 { // 160 expected, sd 9.8
			t.Errorf("image %d was drawn for training %d times in 400 splits", i, n)
		}
	}
	unlabelled := &Set{Rows: 1, Cols: 1, Pix: []float32{0}}
	for name, f := range map[string]func() error{
		"no labels":     func() error { _, _, err := SplitPerClass(unlabelled, 1, 1); return err },
		"too many":      func() error { _, _, err := SplitPerClass(faces, 11, 1); return err },
		"zero":          func() error { _, _, err := SplitPerClass(faces, 0, 1); return err },
		"label outside": func() error { f := faces.Clone(); f.Labels[3] = 9; _, _, err := SplitPerClass(f, 2, 1); return err },
	} {
		if f() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestOccluder(t *testing.T) {
	pix, rows, cols, err := Occluder()
	if err != nil || rows != 360 || cols != 280 || len(pix) != rows*cols {
		t.Fatalf("%d x %d, %v", rows, cols, err)
	}
	// The decoded grey levels, rounded to bytes, are pinned: if a new Go
	// decodes the JPEG differently, the occluded sets change, and this
	// says so.
	b := make([]byte, len(pix))
	var mean float64
	for i, v := range pix {
		b[i] = pixelByte(v)
		mean += float64(v) / float64(len(pix))
	}
	sum := sha256.Sum256(b)
	t.Logf("occluder: mean grey %.4f, SHA-256 of its bytes %s", mean, hex.EncodeToString(sum[:]))
	if got := hex.EncodeToString(sum[:]); got != occluderGreySHA256 {
		t.Errorf("the occluder decodes to other grey levels (SHA-256 %s): occluded sets will differ from earlier ones", got)
	}
	pix[0] = -1
	again, _, _, _ := Occluder()
	if again[0] == -1 {
		t.Error("Occluder returned its cache")
	}
}

// occluderGreySHA256 pins the built-in occluder's grey levels.
const occluderGreySHA256 = "d00a045bacf64979b4a2ac0506eb89c1823faa18507313dc4bf938a4f9280921"

func TestCoverResize(t *testing.T) {
	// A 4 x 8 image whose columns count 0..7, covering 4 x 4: scale 1, the
	// middle four columns.
	src := make([]float32, 32)
	for i := range src {
		src[i] = float32(i % 8)
	}
	if got := CoverResize(src, 4, 8, 4, 4); fmt.Sprint(got[:4]) != "[2 3 4 5]" {
		t.Errorf("crop: %v", got)
	}
	// Covering 8 x 8: scaled by 2, columns 2..5 of the source, each twice.
	if got := CoverResize(src, 4, 8, 8, 8); fmt.Sprint(got[:8]) != "[2 2 3 3 4 4 5 5]" {
		t.Errorf("enlarged crop: %v", got[:8])
	}
	pix, rows, cols, _ := Occluder()
	for _, shape := range [][2]int{{112, 92}, {28, 28}, {10, 200}, {500, 20}} {
		got := CoverResize(pix, rows, cols, shape[0], shape[1])
		if len(got) != shape[0]*shape[1] {
			t.Fatalf("%v: %d values", shape, len(got))
		}
		for _, v := range got {
			if v < 0 || v > 1 || math.IsNaN(float64(v)) {
				t.Fatalf("%v: value %v", shape, v)
			}
		}
	}
}

func TestOcclude(t *testing.T) {
	faces := toyFaces(5, 10)
	out, places, err := Occlude(faces, 12, 5, 21)
	if err != nil {
		t.Fatal(err)
	}
	if len(places) != 12 || out.Len() != faces.Len() || !strings.Contains(out.Source, "Go gopher") {
		t.Fatalf("%d blocks; source %q", len(places), out.Source)
	}
	occ, rows, cols, _ := Occluder()
	cover := CoverResize(occ, rows, cols, faces.Rows, faces.Cols)
	blocks := map[int]Occlusion{}
	for _, p := range places {
		if p.Size != 5 || p.Row < 0 || p.Col < 0 || p.Row+5 > faces.Rows || p.Col+5 > faces.Cols {
			t.Fatalf("block %+v outside the image", p)
		}
		if _, dup := blocks[p.Image]; dup {
			t.Fatalf("image %d occluded twice", p.Image)
		}
		blocks[p.Image] = p
	}
	changed := 0
	for i := 0; i < faces.Len(); i++ {
		a, b := faces.Image(i), out.Image(i)
		p, occluded := blocks[i]
		if occluded {
			changed++
		}
		for y := 0; y < faces.Rows; y++ {
			for x := 0; x < faces.Cols; x++ {
				in := occluded && y >= p.Row && y < p.Row+p.Size && x >= p.Col && x < p.Col+p.Size
				j := y*faces.Cols + x
				if in && b[j] != cover[j] || !in && b[j] != a[j] {
					t.Fatalf("image %d pixel (%d, %d): %v, clean %v, occluder %v (block %+v)", i, y, x, b[j], a[j], cover[j], p)
				}
			}
		}
	}
	if changed != 12 || faces.Pix[0] != toyFaces(5, 10).Pix[0] {
		t.Errorf("%d images changed; input changed: %v", changed, faces.Pix[0] != toyFaces(5, 10).Pix[0])
	}
	// Positions are spread: over many seeds every top-left corner is used.
	used := map[[2]int]int{}
	for seed := uint64(0); seed < 100; seed++ {
		_, places, _ := Occlude(faces, 50, 5, seed)
		for _, p := range places {
			used[[2]int{p.Row, p.Col}]++
		}
	}
	if len(used) != (faces.Rows-4)*(faces.Cols-4) {
		t.Errorf("%d of %d block positions used in 5000 blocks", len(used), (faces.Rows-4)*(faces.Cols-4))
	}
	a, pa, _ := Occlude(faces, 12, 5, 21)
	if !reflect.DeepEqual(a.Pix, out.Pix) || !reflect.DeepEqual(pa, places) {
		t.Error("the same seed gave other occlusions")
	}
	for name, c := range map[string][2]int{"k > N": {51, 5}, "k < 0": {-1, 5}, "block 0": {3, 0}, "block > cols": {3, 13}} {
		if _, _, err := Occlude(faces, c[0], c[1], 1); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if z, p, err := Occlude(faces, 0, 5, 1); err != nil || len(p) != 0 || !reflect.DeepEqual(z.Pix, faces.Pix) {
		t.Errorf("k = 0: %v", err)
	}
}

func TestDerivedOnRealData(t *testing.T) {
	orl := dataDir(t, "orl_faces")
	faces, err := ReadORL(orl)
	if err != nil {
		t.Fatal(err)
	}
	d, err := BuildOccluded(faces, 5, 50, 40, 1)
	if err != nil {
		t.Fatal(err)
	}
	tr, te := d.Part("train"), d.Part("test")
	if tr.Len() != 200 || te.Len() != 200 || len(d.Manifest.Occlusions) != 50 || tr.Rows != 112 || tr.Cols != 92 {
		t.Fatalf("%d / %d images, %d blocks", tr.Len(), te.Len(), len(d.Manifest.Occlusions))
	}
	dir := t.TempDir()
	if err := d.Write(dir); err != nil {
		t.Fatal(err)
	}
	back, err := ReadDerived(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := sameSet(back.Part("train"), tr); diff != "" {
		t.Error(diff)
	}
	mnist := dataDir(t, "mnist")
	train, err := ReadIDX(filepath.Join(mnist, "train-images-idx3-ubyte.gz"), filepath.Join(mnist, "train-labels-idx1-ubyte.gz"))
	if err != nil {
		t.Fatal(err)
	}
	test, err := ReadIDX(filepath.Join(mnist, "t10k-images-idx3-ubyte.gz"), filepath.Join(mnist, "t10k-labels-idx1-ubyte.gz"))
	if err != nil {
		t.Fatal(err)
	}
	rot, err := BuildRotated(train, test, 5000, 5000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rot.Part("train").Len() != 5000 || rot.Part("test").Len() != 5000 {
		t.Fatal("E1 wants 5000 and 5000 images")
	}
	for _, o := range rot.Part("test").Origin {
		if o >= 10000 {
			t.Fatalf("a test digit drawn from outside MNIST's test set: %d", o)
		}
	}
}
