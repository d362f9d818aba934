package compat_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/spec/compat"
)

const tableExpectedPath = "table_expected.json"

// TestIcebergScanChild is the child process of the iceberg-go reader
// (compat.RunIcebergScanChild): the test binary runs itself with
// -test.run=^TestIcebergScanChild$ and the table's metadata.json in the
// environment. Run without it, it does nothing.
func TestIcebergScanChild(t *testing.T) {
	if os.Getenv(compat.IcebergScanEnv) == "" {
		return
	}
	os.Exit(compat.RunIcebergScanChild(os.Stdout))
}

// scanChild runs this test binary as the iceberg-go reader's child.
func scanChild(ctx context.Context) *exec.Cmd {
	return exec.CommandContext(ctx, os.Args[0], "-test.run=^TestIcebergScanChild$")
}

func requireTablePeers(t *testing.T) {
	t.Helper()
	for _, p := range []peers.Peer{peers.Icebird, peers.DuckDB} {
		if err := p.Available(); err != nil {
			testenv.MissingPeer(t, err.Error())
		}
	}
}

// TestTables builds the section's tables with the lab, reads each with
// iceberg-go's scan, icebird and DuckDB's read_parquet, and fails, naming
// the cell or column, where an outcome differs from table_expected.json
// (-update rewrites it). Wrong values are pinned like the rest: the
// section reports them (spec/COMPAT.md, "Tables"); the test catches a
// change.
func TestTables(t *testing.T) {
	requireTablePeers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	tables, err := compat.BuildTables(ctx, t.TempDir(), compat.TableCases())
	if err != nil {
		t.Fatal(err)
	}
	built := time.Since(start)
	m, err := compat.RunTables(ctx, tables, compat.TableReaders(scanChild))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tables built in %v, read by %d readers in %v", len(tables), built.Round(time.Millisecond),
		len(m.Readers), (time.Since(start) - built).Round(time.Millisecond))
	for _, tb := range tables {
		if tb.Case.ID == "primitives" && (tb.Snapshots != 2 || len(tb.DataFiles) != 2) {
			t.Errorf("primitives: %d snapshots, %d data files; want two of each", tb.Snapshots, len(tb.DataFiles))
		}
		for _, r := range m.Readers {
			c := m.Cells[tb.Case.ID][r]
			t.Logf("%s × %s: %s %s", tb.Case.ID, r, c.Class, c.Note)
		}
	}

	// What the table package promises whatever the pins say: without
	// footer annotations iceberg-go's scan reads every table; with them,
	// it dies (the reason the default is off).
	for _, tb := range tables {
		c := m.Cells[tb.Case.ID][compat.TableReaderIcebergGo]
		annotated := tb.Case.Properties["write.parquet.footer-annotations"] == "true"
		if !annotated && c.Class == compat.Crash {
			t.Errorf("%s: iceberg-go's scan crashed on a table without footer annotations: %s", tb.Case.ID, c.Note)
		}
		if annotated && c.Class != compat.Crash {
			t.Logf("%s: iceberg-go's scan no longer crashes on footer annotations (%s %s): %s could default on", tb.Case.ID, c.Class, c.Note, "write.parquet.footer-annotations")
		}
	}

	if *update {
		if err := compat.WriteTableExpected(tableExpectedPath, m); err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + m.Markdown())
		return
	}
	want, err := compat.ReadTableExpected(tableExpectedPath)
	if err != nil {
		t.Fatalf("%v (go test ./spec/compat -run TestTables -update writes it)", err)
	}
	if diffs := m.Diff(want); len(diffs) > 0 {
		t.Errorf("the table section changed; if intended, run go test ./spec/compat -run TestTables -update and lab compat --tables --write spec/COMPAT.md:\n%s",
			strings.Join(diffs, "\n"))
	}
	md, err := os.ReadFile(compatMarkdownPath)
	if err != nil {
		t.Fatal(err)
	}
	if section, ok := compat.GeneratedTables(string(md)); !ok {
		t.Errorf("%s has no table-section markers; run lab compat --tables --write spec/COMPAT.md", compatMarkdownPath)
	} else if section != strings.TrimSpace(m.Markdown()) {
		t.Errorf("the table section of %s is out of date; run lab compat --tables --write spec/COMPAT.md", compatMarkdownPath)
	}
}

// TestTableIcebirdNeedsZlib reads one table with icebird as it comes, its
// Avro manifests left to icebird's own inflate (LAB_ICEBIRD_RAW_AVRO=1 turns
// bench/peers/icebird.mjs's zlib workaround off). It fails when icebird
// reads them: then the workaround can go.
func TestTableIcebirdNeedsZlib(t *testing.T) {
	requireTablePeers(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cases := compat.TableCases()[:1]
	tables, err := compat.BuildTables(ctx, t.TempDir(), cases)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := peers.IcebirdRead(ctx, peers.Icebird, tables[0].MetadataPath); err != nil {
		t.Fatalf("with the workaround: %v", err)
	}
	t.Setenv("LAB_ICEBIRD_RAW_AVRO", "1")
	_, err = peers.IcebirdRead(ctx, peers.Icebird, tables[0].MetadataPath)
	var pe *peers.Error
	if !errors.As(err, &pe) {
		t.Fatalf("icebird read iceberg-go's deflate manifests itself (err %v): the zlib workaround in bench/peers/icebird.mjs can go", err)
	}
	if !strings.Contains(pe.Stderr, "gunzip") {
		t.Errorf("without the workaround icebird fails, but not in gunzip: %v", err)
	}
	t.Logf("without the workaround: %s", strings.SplitN(pe.Stderr, "\n", 2)[0])
}
