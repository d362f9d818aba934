package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

// TestMain removes the binary labBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// labBinary builds the CLI once per test process, so tests run it as a user
// would without paying for a build in every test.
func labBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "lab-cli-test-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "lab")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// run runs the lab in dir and returns what it printed and its exit status.
func run(t *testing.T, bin, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runWith(t, bin, dir, nil, "", args...)
}

// runWith is run with extra environment variables and standard input.
func runWith(t *testing.T, bin, dir string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runWithin(t, 5*time.Minute, bin, dir, env, stdin, args...)
}

// runWithin is runWith that kills the lab and fails the test after d, so
// that a hang fails instead of blocking the suite.
func runWithin(t *testing.T, d time.Duration, bin, dir string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("lab %s: still running after %v; killed", strings.Join(args, " "), d)
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func TestCLI(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	keep := filepath.Join(work, "out")

	t.Run("demo", func(t *testing.T) {
		out, errOut, code := run(t, bin, work, "demo", "--dir", keep)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(out, "error: Invalid file format: lance") || !strings.Contains(out, "  record count: 3") {
			t.Fatalf("demo output:\n%s", out)
		}
		if _, err := os.Stat(filepath.Join(keep, "out.parquet")); err != nil {
			t.Fatalf("--dir did not keep the file: %v", err)
		}
	})
	t.Run("config file sets the directory", func(t *testing.T) {
		dir := filepath.Join(work, "from-config")
		if err := os.WriteFile(filepath.Join(work, "lab.yaml"), []byte("demo:\n  dir: "+dir+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(filepath.Join(work, "lab.yaml"))
		if _, errOut, code := run(t, bin, work, "demo"); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "out.parquet")); err != nil {
			t.Fatalf("lab.yaml demo.dir ignored: %v", err)
		}
	})
	t.Run("environment overrides lab.yaml", func(t *testing.T) {
		fromFile, fromEnv := filepath.Join(work, "file-dir"), filepath.Join(work, "env-dir")
		if err := os.WriteFile(filepath.Join(work, "lab.yaml"), []byte("demo:\n  dir: "+fromFile+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(filepath.Join(work, "lab.yaml"))
		cmd := exec.Command(bin, "demo")
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "LAB_DEMO_DIR="+fromEnv)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if _, err := os.Stat(filepath.Join(fromEnv, "out.parquet")); err != nil {
			t.Fatalf("LAB_DEMO_DIR ignored: %v", err)
		}
		if _, err := os.Stat(fromFile); err == nil {
			t.Fatal("lab.yaml won over the environment")
		}
	})
	for _, tt := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unknown flag", []string{"demo", "--bogus"}, 2, "unknown flag: --bogus"},
		{"extra argument", []string{"demo", "x"}, 2, `unknown command "x"`},
		{"unknown command", []string{"nope"}, 2, `unknown command "nope"`},
		{"missing config", []string{"--config", "/nonexistent/lab.yaml", "demo"}, 1, "/nonexistent/lab.yaml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(t, bin, work, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.msg) {
				t.Fatalf("exit %d, stderr %q; want exit %d with %q", code, errOut, tt.code, tt.msg)
			}
		})
	}
}

func TestBenchVectorsCLI(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	out, errOut, code := run(t, bin, work, "bench", "vectors", "--quick")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"flba", "flba-raw", "list", "vector-repetition", "zstd", "| bss |"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if _, errOut, code := run(t, bin, work, "bench", "vectors", "--size", "12xq"); code != 2 || !strings.Contains(errOut, "want ROWSxDIM") {
		t.Fatalf("bad size: exit %d: %s", code, errOut)
	}
}

func TestConfigShow(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "lab.yaml"), []byte("demo:\n  dir: from-file\nbench:\n  vectors:\n    seed: 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "config", "show")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "LAB_DEMO_DIR=from-env")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "config file: "+filepath.Join(work, "lab.yaml")+"\n") {
		t.Errorf("config show does not name the file:\n%s", out)
	}
	got := map[string]string{} // key -> "value | source"
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && strings.Contains(f[0], ".") {
			got[f[0]] = f[1] + " | " + strings.Join(f[2:], " ")
		}
	}
	for key, want := range map[string]string{
		"demo.dir":              "from-env | environment LAB_DEMO_DIR",
		"bench.vectors.seed":    "9 | config file",
		"bench.vectors.dataset": "clustered | default",
	} {
		if got[key] != want {
			t.Errorf("%s = %q, want %q\n%s", key, got[key], want, out)
		}
	}
}
