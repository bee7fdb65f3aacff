package scn

import (
	"encoding/json"
	"testing"
)

// TestPreprocessingIsPreprocessRecord: the deprecated name is the record
// itself (an alias, not a copy), so that code written against it still
// compiles and a model's header bytes do not depend on the name.
func TestPreprocessingIsPreprocessRecord(t *testing.T) {
	var old Preprocessing = PreprocessRecord{Invert: "auto", ResizeRows: 20, ResizeCols: 20}
	m := &Model{Preprocessing: old}
	var r PreprocessRecord = m.Preprocessing
	if r != old {
		t.Fatalf("%+v, want %+v", r, old)
	}
	b, err := json.Marshal(old)
	if err != nil || string(b) != `{"invert":"auto","resize_rows":20,"resize_cols":20}` {
		t.Fatalf("%s, %v", b, err)
	}
}
