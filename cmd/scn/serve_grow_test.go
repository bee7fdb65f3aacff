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

// TestServeGrow: scn serve --learn --grow with the --old-* training
// images grows a 2dscn model on :grow after images were learnt, and
// writes a snapshot that names the journal; --grow is refused without
// --learn, without the training images, with --forget, on a random
// learner, and the --old-* flags without --grow.
func TestServeGrow(t *testing.T) {
	dir, _, test := files(t)
	images, labels := filepath.Join(dir, "train-images.gz"), filepath.Join(dir, "train-labels.gz")
	m, st := filepath.Join(dir, "grow.scn"), filepath.Join(dir, "grow.scnstats")
	ok(t, "train", "--model", "2dscn", "--preset", "fast", "--nodes", "20", "--ridge", "0.5", "-q", "-o", m, "--stats-out", st,
		"--idx-images", images, "--idx-labels", labels)
	rm, rst := filepath.Join(dir, "growr.scn"), filepath.Join(dir, "growr.scnstats")
	ok(t, "train", "--model", "2drvfl", "--preset", "paper", "--nodes", "20", "--ridge", "0.5", "-q", "-o", rm, "--stats-out", rst,
		"--idx-images", images, "--idx-labels", labels)
	tok := filepath.Join(dir, "grow-token")
	if err := os.WriteFile(tok, []byte("a-token-of-sixteen-bytes-at-least\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := []string{"--old-idx-images", images, "--old-idx-labels", labels}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--grow", "5", m}, "--learn"},
		{append([]string{m}, old...), "--learn --grow"},
		{[]string{"--learn", "--token-file", tok, "--grow", "5", m}, "--old-idx-images"},
		{append([]string{"--learn", "--token-file", tok, m}, old...), "--grow"},
		{append([]string{"--learn", "--token-file", tok, "--grow", "5", "--forget", "0.99", m}, old...), "--forget"},
		{append([]string{"--learn", "--token-file", tok, "--grow-every", "5", m}, old...), "--grow"},
		{append([]string{"--learn", "--token-file", tok, "--grow", "5", "--stats", rst, rm}, old...), "random"},
	} {
		if out := fails(t, append([]string{"serve"}, c.args...)...); !strings.Contains(out, c.want) {
			t.Errorf("serve %v: %s", c.args, out)
		}
	}
	s := startServe(t, append([]string{"--learn", "--token-file", tok, "--grow", "5", "--solve-every", "0", m}, old...)...)
	post := func(path, ctype string, body []byte) (int, map[string]any) {
		req, _ := http.NewRequest("POST", s.url+path, bytes.NewReader(body))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		req.Header.Set("Authorization", "Bearer a-token-of-sixteen-bytes-at-least")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var a map[string]any
		json.NewDecoder(resp.Body).Decode(&a)
		return resp.StatusCode, a
	}
	for i := range 8 {
		img := filepath.Join(dir, "grow-digit.png")
		writePNG(t, img, test.Image(i), test.Rows, test.Cols)
		png, _ := os.ReadFile(img)
		if code, a := post("/v1/models/grow:learn?label="+test.Classes[test.Labels[i]], "image/png", png); code != 200 {
			t.Fatalf("learn: %d %v\n%s", code, a, s.logText())
		}
	}
	code, a := post("/v1/models/grow:grow?wait=true", "", nil)
	if code != 200 || a["nodes"].(float64) <= 20 || a["recent_images"] != 8.0 {
		t.Fatalf("grow: %d %v\n%s", code, a, s.logText())
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
	info, err := os.ReadFile(filepath.Join(dir, "grow.versions", "v000001", "version.json"))
	if err != nil || !strings.Contains(string(info), `"journal": "journal-000001.scnj"`) || !strings.Contains(string(info), `"journal_records": 8`) {
		t.Fatalf("the snapshot of the growth: %v %s\n%s", err, info, s.logText())
	}
}
