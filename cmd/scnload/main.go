// Command scnload is a load generator for "scn serve": it sends single-image
// PNG requests or JSON batches from many concurrent clients to a server on
// loopback, bounded in count and time, and reports requests/s, images/s
// and latency percentiles (and the server's peak memory, given its pid).
//
//	scn serve mnist2d.scn --addr 127.0.0.1:8080 &
//	scnload -model mnist2d -idx t10k-images-idx3-ubyte.gz -c 64 -n 50000
//	scnload -model mnist2d -idx t10k-images-idx3-ubyte.gz -mode json -batch 256 -c 4 -n 400
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/scn2d/scn/dataset"
	"github.com/scn2d/scn/internal/proc"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "scnload:", err)
		os.Exit(1)
	}
}

func run() error {
	base := flag.String("url", "http://127.0.0.1:8080", "server base URL (loopback only)")
	model := flag.String("model", "", "model name")
	idx := flag.String("idx", "", "IDX image file (plain or gzip) the requests' images come from")
	images := flag.Int("images", 1000, "distinct images taken from -idx")
	mode := flag.String("mode", "png", "png: one PNG image per request; json: JSON batches; learn: JSON batches of labelled images to :learn (scn serve --learn)")
	labels := flag.String("labels", "", "IDX label file of -idx's images (-mode learn)")
	tokenFile := flag.String("token-file", "", "file holding the server's bearer token (-mode learn)")
	batchN := flag.Int("batch", 256, "images per JSON batch")
	conc := flag.Int("c", 64, "concurrent clients")
	total := flag.Int("n", 20000, "requests to send")
	maxTime := flag.Duration("t", 60*time.Second, "stop after this long")
	warm := flag.Int("warmup", 500, "requests sent first and not counted")
	wait := flag.Duration("wait", 10*time.Second, "wait this long for the server's /healthz to answer")
	pid := flag.Int("pid", 0, "the server's process id: report its peak resident memory (VmHWM)")
	rate := flag.Float64("rate", 0, "open loop: send this many requests per second on a fixed schedule, whatever the answers' pace (-c bounds the requests in flight; a latency counts from the request's scheduled time); 0: closed loop, each client sends its next request once answered")
	learnWait := flag.Bool("learn-wait", false, "-mode learn: ask each :learn to answer once the served model has learnt its images (?wait=true)")
	flag.Parse()
	if *model == "" || *idx == "" {
		return errors.New("give -model and -idx")
	}
	u, err := url.Parse(*base)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%s is not a loopback address", u.Host)
	}
	if (*mode == "learn") != (*labels != "") {
		return errors.New("-mode learn needs -labels, and -labels is for -mode learn")
	}
	var token string
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			return err
		}
		token = strings.TrimSpace(string(b))
	}
	set, err := dataset.ReadIDX(*idx, *labels)
	if err != nil {
		return err
	}
	n := min(*images, set.Len())
	var bodies [][]byte
	var ctype string
	perReq := 1
	switch *mode {
	case "png":
		ctype = "image/png"
		for i := range n {
			b, err := encodePNG(set.Image(i), set.Rows, set.Cols)
			if err != nil {
				return err
			}
			bodies = append(bodies, b)
		}
	case "json":
		ctype, perReq = "application/json", *batchN
		for k := 0; k < 8; k++ {
			bodies = append(bodies, encodeJSON(set, k*perReq, perReq, n))
		}
	case "learn":
		ctype, perReq = "application/json", *batchN
		for k := 0; k < 8; k++ {
			bodies = append(bodies, encodeLearnJSON(set, k*perReq, perReq, n))
		}
	default:
		return fmt.Errorf("-mode %q: want png, json or learn", *mode)
	}
	verb := ":predict"
	if *mode == "learn" {
		verb = ":learn"
		if *learnWait {
			verb += "?wait=true"
		}
	}
	if !(*rate >= 0) {
		return fmt.Errorf("-rate %v: want a rate >= 0", *rate)
	}
	target := strings.TrimSuffix(*base, "/") + "/v1/models/" + *model + verb
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *conc, MaxConnsPerHost: *conc}, Timeout: 30 * time.Second}

	send := func(body []byte) error {
		req, err := http.NewRequest(http.MethodPost, target, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", ctype)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d: %s", resp.StatusCode, bytes.TrimSpace(b))
		}
		return nil
	}
	for deadline := time.Now().Add(*wait); ; time.Sleep(50 * time.Millisecond) {
		resp, err := client.Get(strings.TrimSuffix(*base, "/") + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server does not answer: %w", err)
		}
	}
	// The peak since the server started includes loading its models (the
	// file's bytes and the decoded model at once); from the warm-up on it
	// is the peak under load. Linux resets VmHWM to the current RSS on
	// writing 5 to clear_refs.
	startHWM, reset := 0.0, false
	if *pid > 0 {
		if hwm, _, err := memory(*pid); err == nil {
			startHWM = hwm
		}
		reset = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", *pid), []byte("5"), 0) == nil
	}
	for i := 0; i < *warm; i++ {
		if err := send(bodies[i%len(bodies)]); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	cpu0 := cpuTime(*pid)
	self0 := proc.CPUTime()
	ctx, cancel := context.WithTimeout(context.Background(), *maxTime)
	defer cancel()
	var next, failed atomic.Int64
	var firstErr atomic.Value
	lat := make([][]time.Duration, *conc)
	svc := make([][]time.Duration, *conc) // open loop: from the request's start
	var wg sync.WaitGroup
	start := time.Now()
	// Open loop: request i is due at start + i / rate; a client takes the
	// next due request once it is free, and its latency counts from when
	// it was due (the wait for a free client included).
	var due chan time.Time
	var late atomic.Int64
	if *rate > 0 {
		due = make(chan time.Time, *total)
		go func() {
			defer close(due)
			for i := 0; i < *total; i++ {
				at := start.Add(time.Duration(float64(i) / *rate * float64(time.Second)))
				if d := time.Until(at); d > 0 {
					select {
					case <-time.After(d):
					case <-ctx.Done():
						return
					}
				} else if ctx.Err() != nil {
					return
				}
				due <- at
			}
		}()
	}
	for c := range *conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(*total) {
					return
				}
				t0 := time.Now()
				sent := t0
				if due != nil {
					at, ok := <-due
					if !ok {
						return
					}
					sent = time.Now()
					if sent.Sub(at) > time.Millisecond {
						late.Add(1)
					}
					t0 = at
				}
				if err := send(bodies[int(i)%len(bodies)]); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				lat[c] = append(lat[c], time.Since(t0))
				if due != nil {
					svc[c] = append(svc[c], time.Since(sent))
				}
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	cpu1 := cpuTime(*pid)
	self1 := proc.CPUTime()
	all := slices.Concat(lat...)
	slices.Sort(all)
	ok := len(all)
	if ok == 0 {
		return fmt.Errorf("no request succeeded: %v", firstErr.Load())
	}
	pct := func(p float64) time.Duration { return all[min(ok-1, int(p*float64(ok)))] }
	fmt.Printf("mode %s, %d clients, %d requests ok, %d failed in %.2f s\n", *mode, *conc, ok, failed.Load(), wall.Seconds())
	if *rate > 0 {
		fmt.Printf("open loop at %.0f requests/s: %d requests sent over 1 ms after they were due (no client free, or the load generator late)\n", *rate, late.Load())
	}
	fmt.Printf("requests/s %.0f, images/s %.0f\n", float64(ok)/wall.Seconds(), float64(ok*perReq)/wall.Seconds())
	fmt.Printf("latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms\n", ms(pct(.5)), ms(pct(.9)), ms(pct(.99)), ms(all[ok-1]))
	if *rate > 0 {
		// The same from when each request was sent: the server's part,
		// without the wait for the schedule (a late load generator).
		sv := slices.Concat(svc...)
		slices.Sort(sv)
		q := func(p float64) time.Duration { return sv[min(len(sv)-1, int(p*float64(len(sv))))] }
		fmt.Printf("latency from sending p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms\n", ms(q(.5)), ms(q(.9)), ms(q(.99)), ms(sv[len(sv)-1]))
	}
	if e := firstErr.Load(); e != nil {
		fmt.Printf("first error: %v\n", e)
	}
	selfCPU := self1 - self0
	fmt.Printf("load generator CPU %.1f us/request\n", float64(selfCPU.Microseconds())/float64(ok))
	if *pid > 0 {
		srv := cpu1 - cpu0
		fmt.Printf("server CPU %.1f us/request, %.2f us/image: %.0f requests/s per core\n", float64(srv.Microseconds())/float64(ok),
			float64(srv.Microseconds())/float64(ok*perReq), float64(ok)/srv.Seconds())
		hwm, rss, err := memory(*pid)
		if err != nil {
			return err
		}
		if reset {
			fmt.Printf("server peak RSS %.1f MiB under load (%.1f MiB before it, models loading included), now %.1f MiB\n", hwm/(1<<20), startHWM/(1<<20), rss/(1<<20))
		} else {
			fmt.Printf("server peak RSS %.1f MiB (since it started: the peak could not be reset), now %.1f MiB\n", hwm/(1<<20), rss/(1<<20))
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// encodePNG encodes grey levels in [0, 1] as an 8-bit grey PNG.
func encodePNG(pix []float32, rows, cols int) ([]byte, error) {
	img := image.NewGray(image.Rect(0, 0, cols, rows))
	for i, v := range pix {
		img.Pix[i] = uint8(v*255 + 0.5)
	}
	var buf bytes.Buffer
	err := png.Encode(&buf, img)
	return buf.Bytes(), err
}

// encodeJSON writes k images from first on (wrapping at n) as a JSON
// batch of flat arrays.
func encodeJSON(s *dataset.Set, first, k, n int) []byte {
	var b []byte
	b = append(b, `{"images":[`...)
	for i := range k {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, v := range s.Image((first + i) % n) {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, float64(v), 'g', -1, 32)
		}
		b = append(b, ']')
	}
	return append(b, "]}"...)
}

// encodeLearnJSON writes k labelled images from first on (wrapping at
// n) as a :learn JSON batch.
func encodeLearnJSON(s *dataset.Set, first, k, n int) []byte {
	b := encodeJSON(s, first, k, n)
	b = append(b[:len(b)-1], `,"labels":[`...)
	for i := range k {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, s.Classes[s.Labels[(first+i)%n]])
	}
	return append(b, "]}"...)
}

// cpuTime returns the user and system time a process has used (0 without
// a pid).
func cpuTime(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) in parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ is 100 on Linux
}

// memory returns a process's peak and current resident memory in bytes.
func memory(pid int) (hwm, rss float64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "VmHWM:" || f[0] == "VmRSS:") {
			v, _ := strconv.ParseFloat(f[1], 64)
			if f[0] == "VmHWM:" {
				hwm = v * 1024
			} else {
				rss = v * 1024
			}
		}
	}
	return hwm, rss, nil
}
