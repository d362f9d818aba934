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

// TestCompatTablesCLI runs lab compat --tables as a user does: the
// iceberg-go reader's child is the lab binary itself (--iceberg-scan-child).
func TestCompatTablesCLI(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	t.Run("errors", func(t *testing.T) {
		_, errOut, code := run(t, bin, work, "compat", "--tables", "--readers", "nope")
		if code != 2 || !strings.Contains(errOut, `unknown table reader "nope"`) {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
		_, errOut, code = runEnv(t, bin, work, []string{peers.DirEnv + "=" + t.TempDir()}, "compat", "--tables", "--readers", "icebird")
		if code != 1 || !strings.Contains(errOut, "peer icebird not installed") {
			t.Errorf("without peers: exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("iceberg-go alone, written into a file", func(t *testing.T) {
		md := filepath.Join(work, "COMPAT.md")
		if err := os.WriteFile(md, []byte("# Title\n\nkept\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second run replaces the section
			out, errOut, code := run(t, bin, work, "compat", "--tables", "--readers", compat.TableReaderIcebergGo, "--write", md)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.HasPrefix(out, "| table | iceberg-go scan |") {
				t.Fatalf("stdout is not the section:\n%s", out)
			}
		}
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if !strings.HasPrefix(text, "# Title\n\nkept\n\n## Tables\n\n"+compat.TablesBegin) || strings.Count(text, compat.TablesBegin) != 1 ||
			!strings.Contains(text, "| footer-annotations | **crash** <sub>panic: invalid logical type") {
			t.Errorf("--write produced:\n%s", text)
		}
	})
	t.Run("all readers as JSON", func(t *testing.T) {
		for _, p := range []peers.Peer{peers.Icebird, peers.DuckDB} {
			if err := p.Available(); err != nil {
				testenv.MissingPeer(t, err.Error())
			}
		}
		want, err := compat.ReadTableExpected("../../spec/compat/table_expected.json")
		if err != nil {
			t.Fatal(err)
		}
		out, errOut, code := run(t, bin, work, "compat", "--tables", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var m compat.TableMatrix
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if diffs := m.Diff(want); len(diffs) > 0 {
			t.Errorf("lab compat --tables differs from table_expected.json:\n%s", strings.Join(diffs, "\n"))
		}
	})
}
