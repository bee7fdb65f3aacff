package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/scn2d/scn/dataset"
)

// FuzzCommandLine runs the command tree in-process on argument vectors
// built from the real flag set: a command, then flags of that command
// with values from a list of edge cases or from the fuzzer's bytes, on a
// tiny data set, under --max-memory 16MiB and a deadline. The command must
// never panic, and must fail with one line starting with "scn: " and
// status 1 or 2 or succeed.
func FuzzCommandLine(f *testing.F) {
	td := tiny(f)
	tmp := f.TempDir()
	root := newRoot()
	all := leaves(root)
	var names []string
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	flags := map[string][]string{}
	for _, n := range names {
		for _, fl := range allFlags(all[n]) {
			if fl.Name != "max-memory" && fl.Name != "help" {
				flags[n] = append(flags[n], fl.Name)
			}
		}
	}
	palette := []string{"-1", "0", "1", "2", "3", "24", "NaN", "Inf", "-Inf", "1e308", "1e-300", "99999999999999999999",
		"0.5", "x", "", "1,5", "0.9,0.99", "1,,5", "6x6", "3x4", "0x0", "auto", "yes", "no", "2dscn", "rvfl", "scn,2drvfl",
		td.images, td.labels, td.folder, td.png, td.model, tmp, filepath.Join(tmp, "missing"), "15,25"}
	safeOut := []string{filepath.Join(tmp, "m.scn"), "", tmp, filepath.Join(tmp, "no", "such", "m.scn"), "/dev/null"}
	base := map[string][]string{
		"train":   {"--idx-images", td.images, "--idx-labels", td.labels, "-q", "-o", filepath.Join(tmp, "m.scn")},
		"eval":    {td.model, "--idx-images", td.images, "--idx-labels", td.labels},
		"predict": {td.model, td.png},
		"compare": {"--idx-images", td.images, "--idx-labels", td.labels, "--test-folder", td.folder, "-q", "--trials", "1"},
		"inspect": {td.model},
		"export":  {td.model, "-o", filepath.Join(tmp, "m.npz")},
	}
	// Appended last, so that they win over the fuzzer's: commands that
	// would read large data or run long are pointed at nothing.
	last := map[string][]string{
		"experiment":      {"--data", filepath.Join(tmp, "missing"), "--out", filepath.Join(tmp, "res")},
		"derive rotated":  {"--data", filepath.Join(tmp, "missing"), "-o", filepath.Join(tmp, "d")},
		"derive faces":    {"--data", filepath.Join(tmp, "missing"), "-o", filepath.Join(tmp, "d")},
		"derive occluded": {"--data", filepath.Join(tmp, "missing"), "-o", filepath.Join(tmp, "d")},
		"serve":           {"--addr", "256.0.0.1:1"}, // cannot listen: flags and models checked, then an error
	}
	f.Add([]byte{0})
	f.Add([]byte("\x05\x01\x00\x02\x01"))
	f.Add([]byte("\x07\x03\x05\x04\x0a"))
	f.Add([]byte("\x08\x02\x07\x01\xff-5"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		name := names[int(data[0])%len(names)]
		args := append(strings.Fields(name), base[name]...)
		data = data[1:]
		for len(data) >= 2 && len(args) < 40 {
			op, pick := data[0], int(data[1])
			data = data[2:]
			var value string
			if op&0x80 != 0 && len(data) > 0 { // raw bytes from the input
				n := min(len(data), int(op&0x0f))
				value, data = string(data[:n]), data[n:]
			} else {
				value = palette[pick%len(palette)]
			}
			switch {
			case op&0x40 != 0: // a positional argument
				args = append(args, value)
			case len(flags[name]) > 0:
				fl := flags[name][int(op&0x3f)%len(flags[name])]
				if fl == "out" || fl == "output" {
					value = safeOut[pick%len(safeOut)]
				}
				args = append(args, "--"+fl+"="+value)
			}
		}
		for _, a := range args {
			if a == "--" || strings.HasPrefix(a, "-o") && a != "-o" {
				return // positional from here on, or an -o value outside the temporary folder
			}
		}
		args = append(args, last[name]...)
		args = append(args, "--max-memory", "16MiB")
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		msg, code, panicked := runInProcess(ctx, args)
		if panicked != "" {
			t.Fatalf("scn %q panicked: %s", args, panicked)
		}
		if code != 0 && (!strings.HasPrefix(msg, "scn: ") || strings.Contains(msg, "\n") || (code != exitError && code != exitUsage)) {
			t.Fatalf("scn %q: exit %d with %q", args, code, msg)
		}
	})
}

// runInProcess runs the command tree on args with ctx, and returns the
// error line and exit status main would give, or the panic.
func runInProcess(ctx context.Context, args []string) (msg string, code int, panicked string) {
	defer dataset.SetMemoryLimit(0) // set by the command; not for the tests after it
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprint(r)
		}
	}()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return "", 0, ""
	}
	msg, code = describeError(err, false)
	return msg, code, ""
}
