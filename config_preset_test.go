package scn

import (
	"reflect"
	"strings"
	"testing"
)

// TestPresetConfig checks that each preset name gives its constructor's
// configuration and that any other name is an error that names it.
func TestPresetConfig(t *testing.T) {
	presets := map[string]func(Kind) Config{"default": Default, "paper": Paper, "fast": Fast}
	for _, k := range []Kind{SCN2D, SCN, RVFL2D, RVFL} {
		for name, want := range presets {
			got, err := PresetConfig(name, k)
			if err != nil {
				t.Fatalf("%s %v: %v", name, k, err)
			}
			if !reflect.DeepEqual(got, want(k)) {
				t.Errorf("%s %v: got %+v, want %+v", name, k, got, want(k))
			}
			if got.Preset != name {
				t.Errorf("%s %v: Preset %q", name, k, got.Preset)
			}
		}
	}
	for _, name := range []string{"", "Default", "custom", "papers"} {
		if _, err := PresetConfig(name, SCN2D); err == nil || !strings.Contains(err.Error(), "unknown preset") {
			t.Errorf("%q: err %v, want unknown preset", name, err)
		}
	}
}
