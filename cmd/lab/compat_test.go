package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/spec/compat"
)

func TestCompatCLI(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	goldenDir, _ := filepath.Abs("../../spec/golden")
	expected, err := compat.ReadExpected("../../spec/compat/expected.json")
	if err != nil {
		t.Fatal(err)
	}

	// checkAgainstExpected runs compat --json with the readers and
	// compares every cell with the checked-in expected matrix.
	checkAgainstExpected := func(t *testing.T, readers string) *compat.Matrix {
		t.Helper()
		out, errOut, code := run(t, bin, work, "compat", "--golden", goldenDir, "--parquet-testing", "", "--readers", readers, "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var m compat.Matrix
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if len(m.Cases) < 24 || strings.Join(m.Readers, ",") != readers {
			t.Fatalf("matrix of %d cases × %v", len(m.Cases), m.Readers)
		}
		for _, c := range m.Cases {
			for _, r := range m.Readers {
				if got, want := m.Cells[c][r].Class, expected.Cells[c][r]; got != want {
					t.Errorf("case %s × reader %s: got %s, expected.json says %s", c, r, got, want)
				}
			}
		}
		if !strings.Contains(errOut, "leaving out parquet-testing/unknown-logical-type") {
			t.Errorf("stderr does not say the parquet-testing case was left out: %q", errOut)
		}
		return &m
	}

	t.Run("in-process readers as JSON", func(t *testing.T) {
		m := checkAgainstExpected(t, "parquet-go,arrow-go,arrow-go (guarded)")
		// The known arrow-go behaviour, whatever expected.json says.
		if c := m.Cells["vector/flba"]["arrow-go"]; c.Class != compat.Crash || !strings.Contains(c.Note, "panic") {
			t.Errorf("unguarded arrow-go on a VECTOR annotation: %+v, want a crash from its panic", c)
		}
		if c := m.Cells["vector/flba"]["arrow-go (guarded)"]; c.Class != compat.Physical {
			t.Errorf("guarded arrow-go on a VECTOR annotation: %+v, want physical", c)
		}
	})
	t.Run("peers", func(t *testing.T) {
		for _, p := range peers.Readers() {
			if err := p.Available(); err != nil {
				testenv.MissingPeer(t, err.Error())
			}
		}
		checkAgainstExpected(t, "duckdb,hyparquet,parquet-wasm")
	})
	t.Run("write without parquet-testing refuses", func(t *testing.T) {
		md := filepath.Join(work, "COMPAT-refused.md")
		hand := "# Title\n\n" + compat.BeginMarker + "\n| case | parquet-go |\n| parquet-testing/unknown-logical-type | typed |\n" + compat.EndMarker + "\n"
		if err := os.WriteFile(md, []byte(hand), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runEnv(t, bin, work, []string{"PARQUET_TEST_DATA="}, "compat", "--golden", goldenDir, "--readers", "parquet-go", "--write", md)
		if code != 1 || out != "" || !strings.Contains(errOut, "--write "+md+": the matrix would lack case parquet-testing/unknown-logical-type: PARQUET_TEST_DATA is not set") {
			t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 naming the missing case and PARQUET_TEST_DATA", code, out, errOut)
		}
		if b, err := os.ReadFile(md); err != nil || string(b) != hand {
			t.Errorf("the refused --write changed %s (%v):\n%s", md, err, b)
		}
	})
	t.Run("write keeps the hand-written text", func(t *testing.T) {
		pt := testenv.ParquetTestingDir(t)
		md := filepath.Join(work, "COMPAT.md")
		hand := "# Title\n\nintro\n\n" + compat.BeginMarker + "\nold table\n" + compat.EndMarker + "\n\n## After\nkept\n"
		if err := os.WriteFile(md, []byte(hand), 0o644); err != nil {
			t.Fatal(err)
		}
		for range 2 { // twice: the second run must replace, not append
			out, errOut, code := run(t, bin, work, "compat", "--golden", goldenDir, "--parquet-testing", pt, "--readers", "parquet-go", "--write", md)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.HasPrefix(out, "| case | parquet-go |") {
				t.Errorf("stdout is not the table:\n%s", out)
			}
		}
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if !strings.HasPrefix(text, "# Title\n\nintro\n\n"+compat.BeginMarker) || !strings.HasSuffix(text, compat.EndMarker+"\n\n## After\nkept\n") ||
			strings.Contains(text, "old table") || strings.Count(text, "| vector/flba |") != 1 ||
			strings.Count(text, "| parquet-testing/unknown-logical-type |") != 1 {
			t.Errorf("--write produced:\n%s", text)
		}
	})
	t.Run("errors", func(t *testing.T) {
		noPeers := t.TempDir()
		for _, tc := range []struct {
			env  []string
			args []string
			code int
			want string
		}{
			{nil, []string{"compat", "--readers", "nope"}, 2, `unknown reader "nope"`},
			{nil, []string{"compat", "extra"}, 2, "unknown command"},
			{nil, []string{"compat", "--golden", filepath.Join(work, "absent"), "--parquet-testing", ""}, 1, "no golden sidecars"},
			{nil, []string{"compat", "--golden", goldenDir, "--parquet-testing", filepath.Join(work, "absent")}, 1, "--parquet-testing"},
			{[]string{peers.DirEnv + "=" + noPeers}, []string{"compat", "--golden", goldenDir, "--parquet-testing", "", "--readers", "duckdb"}, 1, "peer duckdb not installed"},
		} {
			_, errOut, code := runEnv(t, bin, work, tc.env, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
			}
		}
	})
	t.Run("help has an example", func(t *testing.T) {
		out, _, code := run(t, bin, work, "compat", "--help")
		if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "lab compat --write spec/COMPAT.md") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
}

// runEnv is run with extra environment variables.
func runEnv(t *testing.T, bin, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return run(t, bin, dir, args...)
}
