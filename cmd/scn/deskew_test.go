package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// TestDeskewIsRecordedAndApplied: train --deskew records the deskew in the
// model, and eval applies it to new images: its accuracy is that of the
// model on the test images deskewed in this process, and differs from the
// model's on the images as read (so eval did not skip it).
func TestDeskewIsRecordedAndApplied(t *testing.T) {
	dir, _, test := files(t)
	model := filepath.Join(dir, "d.scn")
	ok(t, "train", "--model", "2drvfl", "--nodes", "200", "-q", "--deskew", "--validation", "0",
		"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz"), "-o", model)
	if prep, _ := inspectJSON(t, model)["preprocessing"].(map[string]any); len(prep) != 1 || prep["deskew"] != true {
		t.Fatalf("preprocessing %v, want deskew alone", prep)
	}
	out := ok(t, "eval", model, "--json", "--idx-images", filepath.Join(dir, "test-images"), "--idx-labels", filepath.Join(dir, "test-labels"))
	var got struct{ Accuracy float64 }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out)
	}
	m, err := scn.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	accuracy := func(s *dataset.Set) float64 {
		y, err := m.Predict(s.Images())
		if err != nil {
			t.Fatal(err)
		}
		return scn.Accuracy(scn.ArgMax(y, m.M), s.Labels)
	}
	skewed, err := dataset.Prepare(test, dataset.Preprocess{Deskew: true})
	if err != nil {
		t.Fatal(err)
	}
	want, asRead := accuracy(skewed), accuracy(test)
	if fmt.Sprintf("%.4f", got.Accuracy) != fmt.Sprintf("%.4f", want) || want == asRead {
		t.Errorf("eval accuracy %.4f; deskewed here %.4f, as read %.4f", got.Accuracy, want, asRead)
	}
}

// TestBudgetChoosesDeskewByProbe: without --deskew a budget probes the
// images as read and deskewed, says which it fits, and the model records
// that choice; --replay applies it again (the same file); with --deskew
// given, the budget takes it without probing.
func TestBudgetChoosesDeskewByProbe(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "b.scn")
	out := ok(t, "train", "--budget", "3s", "-q", "-o", m)
	deskewed := strings.Contains(out, "budget: images deskewed")
	if !deskewed && !strings.Contains(out, "budget: images as read") {
		t.Fatalf("the budget did not say how it prepared the images:\n%s", out)
	}
	prep, _ := inspectJSON(t, m)["preprocessing"].(map[string]any)
	if (prep["deskew"] == true) != deskewed {
		t.Errorf("said deskewed %v, the model records %v", deskewed, prep)
	}
	again := filepath.Join(dir, "again.scn")
	ok(t, "train", "--replay", m, "-q", "-o", again)
	if x, y := readFile(t, m), readFile(t, again); !bytes.Equal(x, y) {
		t.Error("the replayed model differs from the budgeted one")
	}
	out = ok(t, "train", "--budget", "3s", "--deskew", "-q", "-o", m)
	if strings.Contains(out, "budget: images") {
		t.Errorf("probed though --deskew was given:\n%s", out)
	}
	if prep, _ := inspectJSON(t, m)["preprocessing"].(map[string]any); prep["deskew"] != true {
		t.Errorf("--budget --deskew: preprocessing %v", prep)
	}
}

// TestDeskewNeedsRoomForACopy: deskewing the whole set holds it twice for
// a moment, so a budget with less memory left than one more copy keeps the
// images as read without probing, although with room the probe prefers
// them deskewed (the built-in set's does, by 3.9 points), and says why.
func TestDeskewNeedsRoomForACopy(t *testing.T) {
	train, _, err := dataset.Default()
	if err != nil {
		t.Fatal(err)
	}
	var msg bytes.Buffer
	b := scn.Budget{Duration: 3 * time.Second, Start: time.Now(), Seed: 1}
	_, p, _, err := chooseDeskew(context.Background(), b, train, dataset.Preprocess{}, &msg)
	if err != nil || !p.Deskew {
		t.Fatalf("with room, the built-in set was not deskewed (%v):\n%s", err, msg.String())
	}
	msg.Reset()
	b.MaxBytes = setBytes(train) - 1
	s, p, rates, err := chooseDeskew(context.Background(), b, train, dataset.Preprocess{}, &msg)
	if err != nil || p.Deskew || s != train || rates != nil {
		t.Fatalf("deskewed without room for a copy (%v):\n%s", err, msg.String())
	}
	if !strings.Contains(msg.String(), "does not fit in the memory left") {
		t.Errorf("no reason given:\n%s", msg.String())
	}
}
