package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNoBrowser is returned by Screenshot when no Chromium is installed.
var ErrNoBrowser = errors.New("report: no Chromium found (Debian: apt-get install chromium)")

// Browser returns the path of a Chromium-family browser: $SCN_CHROMIUM if
// set, else the first of chromium, chromium-browser, google-chrome on PATH,
// else /usr/bin/chromium if it exists.
func Browser() (string, error) {
	if b := os.Getenv("SCN_CHROMIUM"); b != "" {
		return b, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium", nil
	}
	return "", ErrNoBrowser
}

// Screenshot renders the HTML file htmlPath in headless Chromium with a
// window of width x height CSS pixels and writes a PNG to pngPath. The
// browser runs with a throw-away profile and its networking features off;
// a report needs nothing from the network. report/screenshot.sh does the
// same from a shell.
func Screenshot(ctx context.Context, htmlPath, pngPath string, width, height int) error {
	browser, err := Browser()
	if err != nil {
		return err
	}
	html, err := filepath.Abs(htmlPath)
	if err != nil {
		return err
	}
	out, err := filepath.Abs(pngPath)
	if err != nil {
		return err
	}
	profile, err := os.MkdirTemp("", "scn-chromium-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(profile)
	os.Remove(out) // so that a stale file is not taken for a fresh one
	cmd := exec.CommandContext(ctx, browser,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--user-data-dir="+profile, "--screenshot="+out,
		fmt.Sprintf("--window-size=%d,%d", width, height), "file://"+html)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.Env = append(os.Environ(), "HOME="+profile)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("report: %s: %w: %s", filepath.Base(browser), err, lastLine(log.String()))
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		return fmt.Errorf("report: %s wrote no screenshot: %s", filepath.Base(browser), lastLine(log.String()))
	}
	return nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// ScreenshotImage renders the page at htmlPath as Screenshot does, keeps the
// picture at pngPath and returns it decoded, for checks of what a browser
// shows.
func ScreenshotImage(ctx context.Context, htmlPath, pngPath string, width, height int) (image.Image, error) {
	if err := Screenshot(ctx, htmlPath, pngPath, width, height); err != nil {
		return nil, err
	}
	f, err := os.Open(pngPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("report: screenshot %s: %w", pngPath, err)
	}
	return img, nil
}
