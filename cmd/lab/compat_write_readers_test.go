package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/spec/compat"
)

// TestCompatWriteRefusesDroppingReaders: --write with --readers that leave
// out a reader whose column the file's generated table has is a usage
// error (exit 2) that names the file and the readers, and the file is
// left as it was, for the file matrix and the table section alike.
func TestCompatWriteRefusesDroppingReaders(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	goldenDir, _ := filepath.Abs("../../spec/golden")
	checkedIn, err := os.ReadFile("../../spec/COMPAT.md")
	if err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(work, "COMPAT.md")
	if err := os.WriteFile(md, checkedIn, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"file matrix", []string{"compat", "--golden", goldenDir, "--parquet-testing", "", "--readers", "parquet-go", "--write", md},
			"--write with --readers: " + md + ": its generated table has columns for readers arrow-go, arrow-go (guarded), duckdb, hyparquet, parquet-wasm, which the selected readers leave out"},
		{"table section", []string{"compat", "--tables", "--readers", compat.TableReaderIcebergGo, "--write", md},
			"--write with --readers: " + md + ": its generated table has columns for readers icebird, duckdb read_parquet, which the selected readers leave out"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, bin, work, tt.args...)
			if code != 2 || out != "" || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errOut, tt.want)
			}
			if b, err := os.ReadFile(md); err != nil || string(b) != string(checkedIn) {
				t.Errorf("the refused --write changed %s (%v)", md, err)
			}
		})
	}
}
