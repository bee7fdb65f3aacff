package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// server is a running "scn serve" process.
type server struct {
	cmd  *exec.Cmd
	url  string
	mu   sync.Mutex
	log  bytes.Buffer
	done chan error
}

// startServe runs the binary's serve command on a free loopback port and
// waits until it listens.
func startServe(t *testing.T, args ...string) *server {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, done: make(chan error, 1)}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`url=(http://\S+)/`)
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		s.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	})
	select {
	case s.url = <-urls:
	case err := <-s.done:
		t.Fatalf("scn serve ended: %v\n%s", err, s.logText())
	case <-time.After(60 * time.Second):
		t.Fatalf("scn serve did not start:\n%s", s.logText())
	}
	return s
}

func (s *server) logText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// waitLog waits until the log holds text.
func (s *server) waitLog(t *testing.T, text string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(s.logText(), text) {
			return
		}
	}
	t.Fatalf("the log never said %q:\n%s", text, s.logText())
}

type serveAnswer struct {
	Model       string
	Version     string
	Predictions []struct {
		Class  string
		Scores []struct {
			Class string
			Score float64
		}
	}
	Error string
}

func postFile(t *testing.T, url, ctype string, body []byte) (int, serveAnswer) {
	t.Helper()
	resp, err := http.Post(url, ctype, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a serveAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, a
}

func modelVersion(t *testing.T, url, name string) string {
	t.Helper()
	resp, err := http.Get(url + "/v1/models/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var info struct{ Version string }
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
		t.Fatal(err)
	}
	return info.Version
}

// TestServe runs scn serve: its answers are scn predict's; SIGHUP with a
// corrupt file keeps the old model and logs why, with a good one replaces
// it; SIGTERM under load answers every request it accepted and exits 0.
func TestServe(t *testing.T) {
	dir, _, test := files(t)
	a, b := filepath.Join(dir, "a.scn"), filepath.Join(dir, "b.scn")
	for i, path := range []string{a, b} {
		// Uncalibrated (the raw scores are compared with scn predict's;
		// serve/calib_test.go and TestCalibrateCommands the probabilities).
		ok(t, "train", "--model", "2dscn", "--nodes", "40", "--seed", strconv.Itoa(i+1), "-q", "--calibrate=false",
			"--idx-images", filepath.Join(dir, "train-images.gz"), "--idx-labels", filepath.Join(dir, "train-labels.gz"), "-o", path)
	}
	img := filepath.Join(dir, "digit.png")
	writePNG(t, img, test.Image(5), test.Rows, test.Cols)
	file, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}

	// Bad arguments are usage errors.
	failsCode(t, "serve")
	failsCode(t, "serve", a, a)
	failsCode(t, "serve", a, "--max-body", "-1")
	if out, code := run(t, "serve", filepath.Join(dir, "missing.scn")); code != exitError || !strings.Contains(out, "missing") {
		t.Errorf("missing model: exit %d: %s", code, out)
	}

	s := startServe(t, a, "best="+b)
	// The answer is scn predict's.
	code, ans := postFile(t, s.url+"/v1/models/a:predict?top=3", "image/png", file)
	if code != http.StatusOK {
		t.Fatalf("predict: %d %s", code, ans.Error)
	}
	fields := strings.Fields(ok(t, "predict", a, img))
	var parts []string
	for _, sc := range ans.Predictions[0].Scores {
		parts = append(parts, fmt.Sprintf("%s=%.3f", sc.Class, sc.Score))
	}
	if got := strings.Join(append([]string{img, ans.Predictions[0].Class}, parts...), " "); got != strings.Join(fields, " ") {
		t.Errorf("scn serve: %s\nscn predict: %s", got, strings.Join(fields, " "))
	}
	if code, ans := postFile(t, s.url+"/v1/models/best:predict", "image/png", file); code != http.StatusOK || ans.Model != "best" {
		t.Errorf("NAME=PATH model: %d %+v", code, ans)
	}

	// SIGHUP with a corrupt replacement: the old model stays.
	before := modelVersion(t, s.url, "a")
	good, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	writeAtomic(t, a, []byte("not a model file at all, just some bytes of text"))
	s.cmd.Process.Signal(syscall.SIGHUP)
	s.waitLog(t, "reload failed; keeping the model loaded before")
	if !strings.Contains(s.logText(), "not a model file") {
		t.Errorf("the log does not say why:\n%s", s.logText())
	}
	if code, ans := postFile(t, s.url+"/v1/models/a:predict", "image/png", file); code != http.StatusOK || ans.Version != before {
		t.Fatalf("after a corrupt reload: %d, version %s (was %s) %s", code, ans.Version, before, ans.Error)
	}
	// SIGHUP with a good replacement: served from then on.
	bb, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	writeAtomic(t, a, bb)
	s.cmd.Process.Signal(syscall.SIGHUP)
	s.waitLog(t, "model reloaded")
	if v := modelVersion(t, s.url, "a"); v == before || v != modelVersion(t, s.url, "best") {
		t.Errorf("after reloading b.scn as a: version %s (was %s)", v, before)
	}
	writeAtomic(t, a, good)

	// SIGTERM under load: 16 clients, a new connection per request. Every
	// request the server read gets its full answer (the server's count of
	// answers is the clients' count of good ones); the others are refused
	// or reset by the kernel once the server stopped listening.
	base := scrapeAnswered(t, s.url)
	batch := jsonBatch(test, 64)
	var okCount, afterSignal, refused atomic.Int64
	var signalled atomic.Bool
	errs := make(chan error, 100)
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	for c := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 400 {
				body, ctype := file, "image/png"
				if (c+k)%2 == 0 {
					body, ctype = batch, "application/json"
				}
				resp, err := client.Post(s.url+"/v1/models/a:predict", ctype, bytes.NewReader(body))
				if err != nil {
					// After the signal, a connection the server never
					// accepted is refused, or reset when the listener
					// closes (the client may see that as EOF or as its
					// own write failing); the server's count of answers
					// below shows it read none of these requests.
					if signalled.Load() {
						refused.Add(1)
						return
					}
					errs <- fmt.Errorf("request %d of client %d: %v", k, c, err)
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				var a serveAnswer
				if err != nil || resp.StatusCode != http.StatusOK || json.Unmarshal(b, &a) != nil || len(a.Predictions) == 0 {
					errs <- fmt.Errorf("request %d of client %d: status %d, %v: %.200s", k, c, resp.StatusCode, err, b)
					return
				}
				okCount.Add(1)
				if signalled.Load() {
					afterSignal.Add(1)
				}
			}
		}()
	}
	for okCount.Load() < 100 {
		time.Sleep(5 * time.Millisecond)
	}
	signalled.Store(true)
	s.cmd.Process.Signal(syscall.SIGTERM)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("scn serve after SIGTERM: %v\n%s", err, s.logText())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("scn serve did not stop after SIGTERM")
	}
	t.Logf("%d requests answered, %d of them after SIGTERM; %d refused or reset after it", okCount.Load(), afterSignal.Load(), refused.Load())
	m := regexp.MustCompile(`msg=stopped answered=(\d+)`).FindStringSubmatch(s.logText())
	if m == nil {
		t.Fatalf("no final count in the log:\n%s", s.logText())
	}
	if n, _ := strconv.Atoi(m[1]); n != base+1+int(okCount.Load()) {
		t.Errorf("the server answered %d requests, the clients got %d good answers (and %d before)", n, okCount.Load(), base+1)
	}
	if afterSignal.Load() == 0 {
		t.Error("no request in flight at SIGTERM was answered")
	}
	if !strings.Contains(s.logText(), "shutting down") {
		t.Errorf("log:\n%s", s.logText())
	}
}

// scrapeAnswered returns the number of requests the server answered so far,
// from /metrics (the scrape itself not counted).
func scrapeAnswered(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "scn_http_requests_total{") {
			f := strings.Fields(line)
			n, err := strconv.Atoi(f[len(f)-1])
			if err != nil {
				t.Fatalf("metrics line %q", line)
			}
			total += n
		}
	}
	return total
}

func writeAtomic(t *testing.T, path string, b []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// jsonBatch is a JSON batch of the first n test images, flat.
func jsonBatch(s interface{ Image(int) []float32 }, n int) []byte {
	var b []byte
	b = append(b, `{"images": [`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, v := range s.Image(i) {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, float64(v), 'g', -1, 32)
		}
		b = append(b, ']')
	}
	return append(b, "]}"...)
}

// TestGCPercent: the collector's slack stays at the default up to
// gcHeadroom of models, then shrinks so that it is about gcHeadroom,
// floored at 10%.
func TestGCPercent(t *testing.T) {
	for _, c := range []struct {
		size int64
		want int
	}{{0, 100}, {300 << 10, 100}, {gcHeadroom, 100}, {2 * gcHeadroom, 50}, {4 * gcHeadroom, 25}, {10 * gcHeadroom, 10}, {400 << 20, 10}, {1 << 40, 10}} {
		if got := gcPercent(c.size); got != c.want {
			t.Errorf("gcPercent(%d) = %d, want %d", c.size, got, c.want)
		}
	}
}
