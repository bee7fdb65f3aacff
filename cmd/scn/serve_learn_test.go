package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeLearn: scn serve --learn with a token file learns a labelled
// PNG (401 without the token), and on SIGTERM writes a last snapshot that
// a restart loads; the learning flags are refused without --learn, and
// --learn without a token file, or with one others can read.
func TestServeLearn(t *testing.T) {
	dir, _, test := files(t)
	m, st := filepath.Join(dir, "learn.scn"), filepath.Join(dir, "learn.scnstats")
	ok(t, "train", "--model", "2drvfl", "--preset", "paper", "--nodes", "30", "--ridge", "0.5", "-q", "-o", m, "--stats-out", st,
		"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz"))
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte("a-token-of-sixteen-bytes-at-least\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open-token")
	os.WriteFile(open, []byte("a-token-of-sixteen-bytes-at-least\n"), 0o644)
	os.Chmod(open, 0o644)
	if out := fails(t, "serve", "--forget", "0.9", m); !strings.Contains(out, "--learn") {
		t.Errorf("--forget without --learn: %s", out)
	}
	if out := fails(t, "serve", "--solve-every", "1s", m); !strings.Contains(out, "--learn") {
		t.Errorf("--solve-every without --learn: %s", out)
	}
	if out := fails(t, "serve", "--learn-workers", "1", m); !strings.Contains(out, "--learn") {
		t.Errorf("--learn-workers without --learn: %s", out)
	}
	if out := fails(t, "serve", "--learn", m); !strings.Contains(out, "--token-file") {
		t.Errorf("--learn without --token-file: %s", out)
	}
	if out := fails(t, "serve", "--learn", "--token-file", open, m); !strings.Contains(out, "chmod 600") {
		t.Errorf("a token file others can read: %s", out)
	}

	img := filepath.Join(dir, "learn-digit.png")
	writePNG(t, img, test.Image(3), test.Rows, test.Cols)
	png, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	label := test.Classes[test.Labels[3]]
	learn := func(url, token string) (int, map[string]any) {
		req, _ := http.NewRequest("POST", url+"/v1/models/learn:learn?label="+label, bytes.NewReader(png))
		req.Header.Set("Content-Type", "image/png")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var a map[string]any
		json.NewDecoder(resp.Body).Decode(&a)
		return resp.StatusCode, a
	}
	s := startServe(t, "--learn", "--token-file", tok, "--solve-every", "1h", "--learn-workers", "1", m)
	if code, a := learn(s.url, ""); code != http.StatusUnauthorized {
		t.Errorf("learn without the token: %d %v", code, a)
	}
	code, a := learn(s.url, "a-token-of-sixteen-bytes-at-least")
	if code != http.StatusOK || a["learnt"] != 1.0 || a["snapshot"] != 1.0 || a["applied"] != false || a["solve"] != 1.0 {
		t.Fatalf("learn (solve deferred an hour): %d %v", code, a)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("scn serve: %v\n%s", err, s.logText())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("scn serve did not stop")
	}
	snap := filepath.Join(dir, "learn.versions", "v000001", "model.scn")
	if _, err := os.Stat(snap); err != nil {
		t.Fatalf("no last snapshot on SIGTERM: %v\n%s", err, s.logText())
	}
	s2 := startServe(t, "--learn", "--token-file", tok, m)
	if v := modelVersion(t, s2.url, "learn"); v == "" || !strings.Contains(s2.logText(), "version=1") {
		t.Errorf("the restart did not load snapshot 1 (version %q):\n%s", v, s2.logText())
	}
}

// TestLearnProcs: a learning server gets a P for each that its models'
// passes and solves can hold, bounded; workers 0 counts as procs - 1.
func TestLearnProcs(t *testing.T) {
	for _, c := range []struct{ procs, workers, learners, want int }{
		{2, 0, 1, 4},  // a pass and a solve of 1 worker each
		{2, 2, 1, 6},  // of 2 each
		{2, 1, 3, 8},  // three models: at most 3 x procs more
		{1, 0, 1, 3},  // 1 worker at least
		{8, 0, 1, 22}, // 7 workers: 14 more
		{8, 0, 4, 32},
	} {
		if got := learnProcs(c.procs, c.workers, c.learners); got != c.want {
			t.Errorf("learnProcs(%d, %d, %d) = %d, want %d", c.procs, c.workers, c.learners, got, c.want)
		}
	}
}
