//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal pair with the Linux /dev/ptmx interface:
// the master (read by the test) and the slave (given to the command).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		m.Close()
		t.Skipf("unlocking the pty: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		m.Close()
		t.Skipf("pty number: %v", e)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("opening the pty slave: %v", err)
	}
	return m, s
}

// onTerminal runs the binary with stderr on a pseudo-terminal and returns
// what reached the terminal and what reached stdout (a pipe).
func onTerminal(t *testing.T, args ...string) (term, stdout string) {
	t.Helper()
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(binary, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	var got bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&got, master) // ends with EIO once the command has exited
		close(done)
	}()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("scn %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("terminal output did not end")
	}
	return got.String(), out.String()
}

func TestProgressBarOnTerminalOnly(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.scn")
	args := []string{"train", "--model", "2dscn", "--nodes", "300", "-o", model}
	term, stdout := onTerminal(t, args...)
	// The bar shows nodes added (count and L), the residual and the rate.
	// The rate's unit depends on the speed the bar has seen: on a fast
	// machine the fit may end within the bar's 100 ms throttle of its first
	// drawing, which shows "0 nodes/hr"; any unit will do.
	for _, want := range []string{"L=", "RMSE=", "/300", " nodes/"} {
		if !strings.Contains(term, want) {
			t.Errorf("progress bar on a terminal lacks %q:\n%q", want, term)
		}
	}
	if strings.Contains(stdout, "RMSE=") {
		t.Errorf("progress bar went to stdout:\n%s", stdout)
	}
	// --quiet on a terminal: no bar.
	term, _ = onTerminal(t, append(args, "--quiet")...)
	if strings.Contains(term, "RMSE=") || strings.Contains(term, " nodes/") {
		t.Errorf("--quiet still drew a bar:\n%q", term)
	}
	// Not a terminal: no bar, nothing on stderr.
	cmd := exec.Command(binary, args...)
	var errs, out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if errs.Len() != 0 {
		t.Errorf("stderr is a pipe, yet the command wrote to it:\n%q", errs.String())
	}
	if !strings.Contains(out.String(), "saved") || strings.Contains(out.String(), "RMSE=") {
		t.Errorf("stdout:\n%s", out.String())
	}
}
