package peers

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coltype-lab/lab/types/vector"
)

// shellPeer is a fake peer: a shell script in a directory of its own.
func shellPeer(t *testing.T, name, script string) Peer {
	t.Helper()
	return Peer{Name: name, Program: "/bin/sh", Args: []string{"-c", script}, Dir: t.TempDir(), Timeout: 20 * time.Second}
}

func TestRunEchoesJSON(t *testing.T) {
	p := shellPeer(t, "echo", "cat")
	req := map[string]any{"op": "read", "file": "x.parquet", "limit": 3.0}
	var got map[string]any
	if err := Run(context.Background(), p, req, &got); err != nil {
		t.Fatal(err)
	}
	if got["op"] != "read" || got["file"] != "x.parquet" || got["limit"] != 3.0 || len(got) != 3 {
		t.Fatalf("got %v, want the request back", got)
	}
}

func TestRunBadPeers(t *testing.T) {
	tests := []struct {
		name, script string
		kind         error
		want         []string // substrings of the error message
	}{
		{"crasher", "echo 'line one' >&2; echo 'boom: the reason' >&2; exit 3", ErrCrash,
			[]string{"peer crasher", "exit status 3", "boom: the reason"}},
		{"killed", "kill -9 $$", ErrCrash, []string{"peer killed", "signal: killed"}},
		{"garbage", "echo 'this is not JSON'", ErrGarbage, []string{"peer garbage", "this is not JSON"}},
		{"silent", "true", ErrGarbage, []string{"peer silent", "stdout is empty"}},
		{"twice", `echo '{"a":1}'; echo '{"a":2}'`, ErrGarbage, []string{"peer twice", "more than one JSON value"}},
		{"truncated", `printf '{"a":'`, ErrGarbage, []string{"peer truncated", "unexpected EOF"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res map[string]any
			err := Run(context.Background(), shellPeer(t, tt.name, tt.script), map[string]int{}, &res)
			assertError(t, err, tt.kind, tt.want...)
		})
	}
}

func assertError(t *testing.T, err, kind error, want ...string) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error %v, want kind %v", err, kind)
	}
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %T is not a *peers.Error", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

func TestRunMissing(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		p    Peer
		want []string
	}{
		{"no program", Peer{Name: "ghost", Program: "no-such-program-for-the-lab", Dir: dir, Install: "apt-get install ghost"},
			[]string{"peer ghost not installed", "no-such-program-for-the-lab", "install with: apt-get install ghost"}},
		{"no script", Peer{Name: "scriptless", Program: "/bin/sh", Script: "gone.mjs", Dir: dir, Install: "cd bench/peers && npm ci"},
			[]string{"peer scriptless", "gone.mjs", "install with: cd bench/peers && npm ci"}},
		{"no package", Peer{Name: "nopkg", Program: "/bin/sh", Dir: dir, Install: "cd bench/peers && npm ci",
			Detect: func(dir string) error { return errors.New("npm package x is not installed in " + dir) }},
			[]string{"peer nopkg", "npm package x is not installed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Run(context.Background(), tt.p, nil, new(any))
			assertError(t, err, ErrMissing, tt.want...)
		})
	}
}

// TestRunHangKillsProcessGroup runs a peer that never answers and leaves a
// child behind holding its stdout; the timeout must end both, promptly.
func TestRunHangKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	p := shellPeer(t, "sleeper", `echo $$ > "$0"; sleep 60 & echo $! >> "$0"; sleep 60`)
	p.Args = append(p.Args, pidFile) // $0 of the script
	p.Timeout = 300 * time.Millisecond
	start := time.Now()
	err := Run(context.Background(), p, nil, new(any))
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("Run took %v after a %v timeout", took, p.Timeout)
	}
	assertError(t, err, ErrHang, "peer sleeper", "300ms")

	b, rerr := os.ReadFile(pidFile)
	if rerr != nil {
		t.Fatal(rerr)
	}
	pids := strings.Fields(string(b))
	if len(pids) != 2 {
		t.Fatalf("pids file %q, want the shell's and its child's", b)
	}
	for _, s := range pids {
		pid, _ := strconv.Atoi(s)
		waitGone(t, pid)
	}
}

// waitGone fails unless pid is gone (or a zombie: dead, not yet reaped by
// whoever inherited it) within a few seconds.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs after the peer timed out", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRunCallerCancel(t *testing.T) {
	p := shellPeer(t, "patient", "sleep 60")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := Run(ctx, p, nil, new(any))
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrHang) {
		t.Fatalf("error %v, want the caller's deadline, not the peer's timeout", err)
	}
	if !strings.Contains(err.Error(), "peer patient") {
		t.Errorf("error %q does not name the peer", err)
	}
}

func TestDir(t *testing.T) {
	want, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(want, "package-lock.json")); err != nil {
		t.Fatalf("Dir() = %s: %v", want, err)
	}
	// From elsewhere in the module, and from outside it.
	for _, wd := range []string{filepath.Join(want, "..", "..", "types", "vector"), t.TempDir()} {
		t.Run(filepath.Base(wd), func(t *testing.T) {
			t.Chdir(wd)
			if got, err := Dir(); err != nil || got != want {
				t.Errorf("from %s: Dir() = %q, %v; want %q", wd, got, err, want)
			}
		})
	}
	t.Run("env", func(t *testing.T) {
		other := t.TempDir()
		t.Setenv(DirEnv, other)
		if got, err := Dir(); err != nil || got != other {
			t.Errorf("with %s=%s: Dir() = %q, %v", DirEnv, other, got, err)
		}
	})
}

func TestWriteSidecar(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.f32")
	m := vector.Matrix{Dim: 2, Data: []float32{1, -2, 0.5, 3}}
	if err := WriteSidecar(path, m); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0, 0, 0, 0, 0x3f, 0, 0, 0x40, 0x40}
	if string(b) != string(want) {
		t.Fatalf("sidecar bytes % x, want % x", b, want)
	}
	if err := WriteSidecar(path, vector.Matrix{Dim: 3, Data: []float32{1, 2}}); err == nil {
		t.Fatal("WriteSidecar accepted 2 values as rows of 3")
	}
}
