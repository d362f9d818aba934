//go:build unix

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coltype-lab/lab/types/file"
)

// runGuarded is runWith that fails, instead of hanging, after 10 s.
func runGuarded(t *testing.T, bin, dir string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runWithin(t, 10*time.Second, bin, dir, env, stdin, args...)
}

// tableRows reads the KEY VALUE SOURCE rows of lab config show and of the
// policy lab file resolve prints: key -> "value | source".
func tableRows(text string) map[string]string {
	rows := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		f := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
		if len(f) == 3 && strings.Contains(f[0], ".") {
			rows[f[0]] = f[1] + " | " + f[2]
		}
	}
	return rows
}

// A ./lab.yaml the user did not name cannot widen the FILE policy; the
// same settings named with --config, trusted with --trust-config or set in
// the environment do, and the policy says where each part came from.
func TestImplicitConfigCannotWidenPolicy(t *testing.T) {
	bin := labBinary(t)
	dir := t.TempDir()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("not yours"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFileColumn(t, filepath.Join(dir, "refs.parquet"), true, &file.Value{URI: file.Ptr(secret)})
	resolve := []string{"file", "resolve", "refs.parquet", "--column", "doc", "--json"}
	cfg := filepath.Join(dir, "lab.yaml")
	widen := "file:\n  resolve:\n    root: [" + outside + "]\n    max_size: 1000\n    idle_timeout: 7s\n"
	yamlNote := "lab: warning: " + cfg + ": ignoring file.resolve.root: it widens what the lab may open, and the file was found in the working directory, not named with --config (pass --trust-config to take it)"
	ignored := "default (ignored in " + cfg + ": not named with --config nor trusted with --trust-config)"
	for _, tt := range []struct {
		name     string
		yaml     string
		env      []string
		flags    []string
		status   file.Status       // of the row that names the outside file
		warnings []string          // stderr must hold these
		policy   map[string]string // rows of the policy printed on stderr
	}{
		{"found lab.yaml is ignored", widen, nil, nil, file.StatusError,
			[]string{yamlNote, "lab: warning: " + cfg + ": ignoring file.resolve.max_size:"},
			map[string]string{
				"file.resolve.root":         dir + " | " + ignored,
				"file.resolve.max_size":     "268435456 bytes | " + ignored,
				"file.resolve.idle_timeout": "7s | config file", // not widening: taken
			}},
		{"other spellings are ignored too", "File:\n  Resolve:\n    ROOT: [" + outside + "]\nfile.resolve.max_size: 1000\n", nil, nil, file.StatusError,
			[]string{yamlNote, "ignoring file.resolve.max_size"},
			map[string]string{"file.resolve.root": dir + " | " + ignored}},
		{"--config names it", widen, nil, []string{"--config", cfg}, file.StatusOK, nil,
			map[string]string{
				"file.resolve.root":     outside + " | config file (named with --config)",
				"file.resolve.max_size": "1000 bytes | config file (named with --config)",
			}},
		{"--trust-config trusts it", widen, nil, []string{"--trust-config"}, file.StatusOK, nil,
			map[string]string{"file.resolve.root": outside + " | config file (trusted with --trust-config)"}},
		{"the environment is honoured and reported", "", []string{"LAB_FILE_RESOLVE_ROOT=" + outside}, nil, file.StatusOK, nil,
			map[string]string{
				"file.resolve.root":   outside + " | environment LAB_FILE_RESOLVE_ROOT",
				"file.resolve.scheme": "file | default",
				"file.resolve.host":   "- | default",
			}},
		{"a flag wins over the environment", "", []string{"LAB_FILE_RESOLVE_ROOT=/"}, []string{"--root", outside}, file.StatusOK, nil,
			map[string]string{}}, // nothing widened but by the command line: no policy printed
	} {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(cfg)
			if tt.yaml != "" {
				if err := os.WriteFile(cfg, []byte(tt.yaml), 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(cfg)
			}
			out, errOut, _ := runGuarded(t, bin, dir, tt.env, "", append(tt.flags, resolve...)...)
			doc := parseResolveJSON(t, out)
			if len(doc.Rows) != 1 || doc.Rows[0].Status != tt.status {
				t.Fatalf("rows %+v, want status %s\nstderr:\n%s", doc.Rows, tt.status, errOut)
			}
			if tt.status == file.StatusError && doc.Rows[0].Rule != file.RuleOutsideRoot {
				t.Errorf("row %+v, want rule %s", doc.Rows[0], file.RuleOutsideRoot)
			}
			for _, want := range tt.warnings {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
			if printed := strings.Contains(errOut, "lab: FILE resolution policy:"); printed != (len(tt.policy) > 0) {
				t.Errorf("policy printed: %v, want %v:\n%s", printed, len(tt.policy) > 0, errOut)
			}
			rows := tableRows(errOut)
			for key, want := range tt.policy {
				if rows[key] != want {
					t.Errorf("%s = %q, want %q\n%s", key, rows[key], want, errOut)
				}
			}
		})
	}

	t.Run("--show-policy leaves stdout as it was", func(t *testing.T) {
		plain, errPlain, _ := runGuarded(t, bin, dir, nil, "", resolve...)
		shown, errShown, _ := runGuarded(t, bin, dir, nil, "", append(resolve, "--show-policy")...)
		if plain != shown {
			t.Errorf("stdout differs with --show-policy:\n%s\n---\n%s", plain, shown)
		}
		if strings.Contains(errPlain, "resolution policy") {
			t.Errorf("policy printed unasked with nothing but defaults:\n%s", errPlain)
		}
		rows := tableRows(errShown)
		for key, want := range map[string]string{
			"file.resolve.root":            dir + " | default (the Parquet file's directory)",
			"file.resolve.base":            dir + " | default (the Parquet file's directory)",
			"file.resolve.max_size":        "268435456 bytes | default",
			"file.resolve.connect_timeout": "10s | default",
			"file.resolve.header_timeout":  "30s | default",
			"file.resolve.idle_timeout":    "30s | default",
		} {
			if rows[key] != want {
				t.Errorf("--show-policy: %s = %q, want %q\n%s", key, rows[key], want, errShown)
			}
		}
	})

	t.Run("config show says why a key is ignored", func(t *testing.T) {
		if err := os.WriteFile(cfg, []byte(widen+"demo:\n  dir: kept\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(cfg)
		out, errOut, code := runGuarded(t, bin, dir, nil, "", "config", "show")
		if code != 0 || !strings.Contains(errOut, yamlNote) {
			t.Fatalf("exit %d, stderr:\n%s", code, errOut)
		}
		rows := tableRows(out)
		for key, want := range map[string]string{
			"file.resolve.root":         "[] | " + ignored,
			"file.resolve.idle_timeout": "7s | config file",
			"demo.dir":                  "kept | config file",
		} {
			if rows[key] != want {
				t.Errorf("config show: %s = %q, want %q\n%s", key, rows[key], want, out)
			}
		}
	})
}

// A FIFO given as the input fails at once, naming it, instead of blocking
// the open until someone writes to it.
func TestFIFOInputs(t *testing.T) {
	bin := labBinary(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "in.parquet")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, args := range [][]string{
		{"read", "in.parquet"},
		{"inspect", "in.parquet"},
		{"vector", "search", "in.parquet", "--query", "[1,0,0]"},
		{"vector", "take", "in.parquet", "--rows", "0"},
		{"file", "resolve", "in.parquet", "--column", "doc"},
		{"annotate", "in.parquet", "out.parquet", "--file", "doc"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			_, errOut, code := runGuarded(t, bin, dir, nil, "", args...)
			if code == 0 || !strings.Contains(errOut, "in.parquet is a named pipe (FIFO), not a regular file") {
				t.Fatalf("exit %d, stderr %q; want the FIFO refused by name", code, errOut)
			}
		})
	}
}

// lab write replaces a regular file only, and only with --overwrite:
// renaming over a FIFO, a symlink or a directory would replace the node.
func TestWriteOverwriteOnlyRegularFiles(t *testing.T) {
	bin := labBinary(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "target.parquet")
	if err := os.WriteFile(target, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.parquet"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "link.parquet")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.parquet"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		out, msg string
	}{
		{"fifo.parquet", "lab: fifo.parquet is a named pipe (FIFO), not a regular file, and cannot be replaced\n"},
		{"link.parquet", "lab: link.parquet is a symlink, not a regular file, and cannot be replaced\n"},
		{"sub.parquet", "lab: sub.parquet is a directory and cannot be replaced\n"},
	} {
		for _, overwrite := range []bool{true, false} {
			args := []string{"write", "-q", "--schema", "id:long", tt.out}
			if overwrite {
				args = append(args, "--overwrite")
			}
			t.Run(strings.Join(args[4:], " "), func(t *testing.T) {
				before, _ := os.Lstat(filepath.Join(dir, tt.out))
				_, errOut, code := runGuarded(t, bin, dir, nil, `{"id":1}`+"\n", args...)
				if code != 1 || errOut != tt.msg {
					t.Errorf("exit %d, stderr %q; want exit 1, %q", code, errOut, tt.msg)
				}
				after, err := os.Lstat(filepath.Join(dir, tt.out))
				if err != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
					t.Errorf("%s was replaced: %v", tt.out, err)
				}
			})
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Errorf("the symlink's target holds %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Errorf("%d entries in the directory, want the 4 it started with", len(entries))
	}
}

// The http(s) timeouts reach the resolver from the flags and from lab.yaml
// (they do not widen the policy): a server that accepts and never answers
// fails the row, naming the uri and the timeout, instead of hanging it.
func TestFileResolveHTTPTimeouts(t *testing.T) {
	bin := labBinary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered, until the test ends
		}
	}()
	host := ln.Addr().String()
	uri := "http://" + host + "/stall.bin"
	dir := t.TempDir()
	writeFileColumn(t, filepath.Join(dir, "web.parquet"), true, &file.Value{URI: file.Ptr(uri)})
	args := []string{"file", "resolve", "web.parquet", "--column", "doc", "--json", "--scheme", "http", "--host", host}
	for _, tt := range []struct {
		name, yaml string
		flags      []string
	}{
		{"flag", "", []string{"--header-timeout", "50ms"}},
		{"lab.yaml", "file:\n  resolve:\n    header_timeout: 50ms\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := filepath.Join(dir, "lab.yaml")
			os.Remove(cfg)
			if tt.yaml != "" {
				if err := os.WriteFile(cfg, []byte(tt.yaml), 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(cfg)
			}
			out, errOut, code := runGuarded(t, bin, dir, nil, "", append(args, tt.flags...)...)
			doc := parseResolveJSON(t, out)
			want := `FILE uri "` + uri + `": header timeout of 50ms: no response headers after the request was sent`
			if code != 1 || len(doc.Rows) != 1 || doc.Rows[0].Status != file.StatusError || doc.Rows[0].Reason != want {
				t.Fatalf("exit %d, rows %+v; want the row to fail with %q (stderr %q)", code, doc.Rows, want, errOut)
			}
		})
	}
}

// SIGTERM or Ctrl-C during a write leaves no unfinished file beside the
// output (they used to stay, megabytes each, as hidden .tmp files).
func TestSignalRemovesPartialOutput(t *testing.T) {
	bin := labBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, "write", "--schema", "id:long!,name:string", filepath.Join(dir, "out.parquet"))
			cmd.Dir = dir
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for i := range 20000 {
				fmt.Fprintf(stdin, "{\"id\": %d, \"name\": \"row %d\"}\n", i, i)
			}
			// Wait for the unfinished file, then interrupt the write.
			deadline := time.Now().Add(10 * time.Second)
			for {
				ents, _ := os.ReadDir(dir)
				if len(ents) > 0 {
					break
				}
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					t.Fatal("no output file appeared")
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("lab did not exit on the signal")
			}
			if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
				t.Errorf("exit status %d, want %d (stderr %q)", code, 128+int(sig), stderr.String())
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Fatalf("left %v", names)
			}
		})
	}
}
