package peers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

const (
	// stderrKeep bounds the stderr kept for error messages.
	stderrKeep = 64 << 10
	// stderrLines is how many of its last lines an error quotes.
	stderrLines = 12
	// waitDelay bounds the wait for stdout and stderr to close after the
	// peer exits or is killed, should something else still hold them.
	waitDelay = 5 * time.Second
)

// Run starts p, writes request as JSON on its stdin, and decodes the one
// JSON value it prints on stdout into result. The run ends with ctx or after
// p.Timeout (DefaultTimeout when zero), whichever is first; the peer runs in
// its own process group, which is killed on timeout and swept after every
// run, so no process outlives Run. Failures are *Error values naming the
// peer, of kind ErrMissing, ErrCrash, ErrHang or ErrGarbage; when ctx itself
// ends first, the error wraps ctx's error instead.
//
// The peer runs in the caller's working directory, so relative paths in a
// request mean what they mean to the caller.
func Run(ctx context.Context, p Peer, request, result any) error {
	dir, err := p.Check()
	if err != nil {
		return err
	}
	in, err := json.Marshal(request)
	if err != nil {
		return fmt.Errorf("peer %s: encoding the request: %w", p.Name, err)
	}
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	args := append([]string(nil), p.Args...)
	if p.Script != "" {
		args = append([]string{filepath.Join(dir, p.Script)}, args...)
	}
	cmd := exec.CommandContext(runCtx, p.Program, args...)
	var stdout bytes.Buffer
	stderr := &tailBuffer{max: stderrKeep}
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stdout = &stdout
	cmd.Stderr = stderr
	cmd.WaitDelay = waitDelay
	ownProcessGroup(cmd)

	start := time.Now()
	runErr := cmd.Run()
	if cmd.Process != nil {
		killProcessGroup(cmd) // children the peer left behind, whatever happened
	}
	elapsed := time.Since(start)

	fail := func(kind error, err error, format string, args ...any) error {
		return &Error{Peer: p.Name, Kind: kind, Detail: fmt.Sprintf(format, args...),
			Stderr: lastLines(stderr.String(), stderrLines), Err: err}
	}
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("peer %s: stopped after %v: %w", p.Name, elapsed.Round(time.Millisecond), ctx.Err())
	case runCtx.Err() != nil:
		return fail(ErrHang, runCtx.Err(), "no result within %v; killed its process group", timeout)
	case runErr != nil:
		var exitErr *exec.ExitError
		if errors.As(runErr, &exitErr) {
			return fail(ErrCrash, runErr, "%v", exitErr.ProcessState)
		}
		return fail(ErrCrash, runErr, "%v", runErr)
	}

	dec := json.NewDecoder(bytes.NewReader(stdout.Bytes()))
	if err := dec.Decode(result); err != nil {
		return fail(ErrGarbage, err, "%v; stdout begins %s", err, snippet(stdout.Bytes()))
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail(ErrGarbage, nil, "more than one JSON value on stdout, which begins %s", snippet(stdout.Bytes()))
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it (approximately: it
// trims in halves so as not to copy on every write).
type tailBuffer struct {
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if len(t.buf) > t.max {
		return string(t.buf[len(t.buf)-t.max:])
	}
	return string(t.buf)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func snippet(b []byte) string {
	const max = 200
	if len(b) == 0 {
		return "(stdout is empty)"
	}
	if len(b) > max {
		return fmt.Sprintf("%q…", b[:max])
	}
	return fmt.Sprintf("%q", b)
}
