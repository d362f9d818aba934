package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSpecGoldenCLI(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	dir := filepath.Join(work, "golden")

	t.Run("write", func(t *testing.T) {
		out, errOut, code := run(t, bin, work, "spec", "golden", "--dir", dir)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, want := range []string{"wrote 18 file cases", "wrote 11 vector cases", "wrote 1 variant cases"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		for _, f := range []string{"file/range.parquet", "file/range.json", "file/objects/data.bin", "vector/vector-repetition.parquet", "variant/shredded.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Error(err)
			}
		}
	})
	t.Run("check passes on fresh and checked-in files", func(t *testing.T) {
		for _, d := range []string{dir, "../../spec/golden"} {
			abs, _ := filepath.Abs(d)
			out, errOut, code := run(t, bin, work, "spec", "golden", "--check", "--dir", abs)
			if code != 0 || !strings.Contains(out, "up to date") {
				t.Fatalf("%s: exit %d: %s%s", d, code, out, errOut)
			}
		}
	})
	t.Run("check finds a modified file", func(t *testing.T) {
		path := filepath.Join(dir, "vector", "flba.json")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, ' '), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := run(t, bin, work, "spec", "golden", "--check", "--dir", dir, "--json")
		if code != 1 {
			t.Fatalf("exit %d, want 1: %s%s", code, out, errOut)
		}
		var rep struct {
			Differences []struct{ Path, Problem string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if len(rep.Differences) != 1 || rep.Differences[0].Path != "vector/flba.json" || rep.Differences[0].Problem != "bytes differ" {
			t.Errorf("differences %+v, want vector/flba.json bytes differ", rep.Differences)
		}
		if !strings.Contains(errOut, "1 golden files under") {
			t.Errorf("stderr %q does not say what differs", errOut)
		}
		// Writing repairs it.
		if _, errOut, code := run(t, bin, work, "spec", "golden", "--dir", dir); code != 0 {
			t.Fatalf("rewrite: exit %d: %s", code, errOut)
		}
		if out, _, code := run(t, bin, work, "spec", "golden", "--check", "--dir", dir); code != 0 {
			t.Fatalf("after rewrite: exit %d: %s", code, out)
		}
	})
	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			code int
			want string
		}{
			{[]string{"spec", "golden", "extra"}, 2, "unknown command"},
			{[]string{"spec", "golden", "--dir", ""}, 2, "--dir must not be empty"},
			{[]string{"spec", "golden", "--nope"}, 2, "unknown flag"},
			{[]string{"spec", "golden", "--check", "--dir", filepath.Join(work, "absent")}, 1, "absent"},
		} {
			_, errOut, code := run(t, bin, work, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
			}
		}
	})
	t.Run("help has an example", func(t *testing.T) {
		out, _, code := run(t, bin, work, "spec", "golden", "--help")
		if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "lab spec golden --check") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
}
