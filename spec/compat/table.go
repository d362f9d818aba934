package compat

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	itable "github.com/apache/iceberg-go/table"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/jsonrow"
	"github.com/coltype-lab/lab/data/schemaspec"
	"github.com/coltype-lab/lab/table"
	"github.com/coltype-lab/lab/types/vector"
)

// The table section: Iceberg tables the lab creates and appends to (package
// table: an embedded SQL catalog on SQLite, Parquet data files written
// through the registry), read by engines that know Iceberg or Parquet but
// not the lab: iceberg-go's own scan (arrow-go underneath), icebird (a
// JavaScript Iceberg reader, hyparquet underneath) and DuckDB's
// read_parquet over the data files the table's manifests list. Each
// reader's rows are compared, column by column, with the rows the lab
// appended; a cell is ok, wrong, error or crash (spec/COMPAT.md, "Tables").

// TableCase is one table of the section: its schema (schemaspec's compact
// form), partition spec, table properties and the rows of each append, in
// the JSON form lab write and lab table append take. Every schema has a
// required long column "id", unique across the appends, by which rows are
// matched: no reader is asked for an order.
type TableCase struct {
	ID         string
	About      string
	Schema     string
	Partition  string
	Properties map[string]string
	Appends    [][]string
}

const multimodalSchema = "id:long!,img:file,emb:vector<float32,4>,doc:variant,region:string"

// multimodalRows are table/table_test.go's sample rows (a FILE with a
// locator, one with inline bytes and a null one; vectors with NaN and a null
// vector; variants that are an object, an array and SQL NULL) and one more.
var multimodalRows = []string{
	`{"id":1,"img":{"uri":"file:///img/a.png","offset":null,"size":3,"content_type":"image/png","checksum":null,"inline":null},"emb":[1,2,3,4],"doc":{"a":1,"b":[true,null]},"region":"eu"}`,
	`{"id":2,"img":null,"emb":[0.5,-1,"NaN",8],"doc":[1,"x"],"region":"us"}`,
	`{"id":3,"img":{"uri":null,"offset":null,"size":null,"content_type":"text/plain","checksum":null,"inline":"0102"},"emb":null,"doc":null,"region":"eu"}`,
	// Bytes that are not UTF-8: a PNG signature inline, and a variant whose
	// encoding holds bytes of 0x80 and above (an int16, a double, a string
	// past ASCII), as almost every real one does.
	`{"id":4,"img":{"uri":null,"offset":null,"size":null,"content_type":"image/png","checksum":null,"inline":"89504e470d0a1a0a"},"emb":[0.001,2.5,-3,1e10],"doc":{"n":1000,"score":1.5,"name":"é"},"region":"ap"}`,
}

// TableCases are the section's tables.
func TableCases() []TableCase {
	return []TableCase{
		{ID: "multimodal", About: "FILE, VECTOR, VARIANT and string columns, unpartitioned, one append",
			Schema: multimodalSchema, Appends: [][]string{multimodalRows}},
		{ID: "multimodal-partitioned", About: "the same, partitioned by identity(region): one data file per region, the us file's FILE column all null",
			Schema: multimodalSchema, Partition: "region", Appends: [][]string{multimodalRows}},
		{ID: "primitives", About: "long, double, string, boolean, date, timestamp, decimal(18,2), binary over two appends (two snapshots, two data files)",
			Schema: "id:long!,d:double,s:string,b:boolean,day:date,ts:timestamp,amount:decimal(18,2),raw:binary",
			Appends: [][]string{{
				`{"id":1,"d":1.5,"s":"a","b":true,"day":"2024-02-29","ts":"2024-02-29T12:34:56.123456","amount":"1234567890123456.78","raw":"00ff"}`,
				`{"id":2,"d":"NaN","s":"ünïcødé ☃","b":false,"day":"1969-12-31","ts":"1969-12-31T23:59:59.999999","amount":"-0.01","raw":"c3a9"}`,
				`{"id":3,"d":null,"s":null,"b":null,"day":null,"ts":null,"amount":null,"raw":null}`,
			}, {
				`{"id":4,"d":-1e300,"s":"","b":true,"day":"1970-01-01","ts":"2001-02-03T04:05:06","amount":"0.00","raw":""}`,
				`{"id":5,"d":"-Infinity","s":"x","b":false,"day":"2262-04-11","ts":"1900-01-01T00:00:00.000001","amount":"9999999999999999.99","raw":"41"}`,
			}}},
		{ID: "footer-annotations", About: "the multimodal table opted in to FILE and VECTOR in its data files' footers (" + table.PropFooterAnnotations + "=true)",
			Schema: multimodalSchema, Properties: map[string]string{table.PropFooterAnnotations: "true"}, Appends: [][]string{multimodalRows}},
	}
}

// BuiltTable is a TableCase the lab has created and appended to.
type BuiltTable struct {
	Case TableCase
	Spec *schemaspec.Spec
	// Metadata is the table's current metadata.json, as iceberg-go names
	// it (a file:// URI); MetadataPath the same as a local path.
	Metadata, MetadataPath string
	// DataFiles are the local paths of the data files the current
	// snapshot's manifests list, in planning order.
	DataFiles []string
	Snapshots int
	// Rows are what the lab appended, one map per row in lab read's JSON
	// form (numbers as json.Number), sorted by id.
	Rows []map[string]any
}

// BuildTables creates every case in one embedded catalog under dir and
// appends its rows, one commit per append.
func BuildTables(ctx context.Context, dir string, cases []TableCase) ([]*BuiltTable, error) {
	cat, err := table.OpenCatalog(ctx, map[string]string{table.PropWarehouse: dir}, table.CreateIfMissing())
	if err != nil {
		return nil, err
	}
	defer cat.Close()
	var out []*BuiltTable
	for _, c := range cases {
		bt, err := buildTable(ctx, cat, c)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", c.ID, err)
		}
		out = append(out, bt)
	}
	return out, nil
}

func buildTable(ctx context.Context, cat *table.Catalog, c TableCase) (*BuiltTable, error) {
	spec, err := schemaspec.Load(c.Schema)
	if err != nil {
		return nil, err
	}
	ident, err := table.ParseIdentifier("compat." + strings.ReplaceAll(c.ID, "-", "_"))
	if err != nil {
		return nil, err
	}
	tbl, err := cat.Create(ctx, ident, table.CreateOptions{Spec: spec, Partition: c.Partition, Properties: c.Properties})
	if err != nil {
		return nil, err
	}
	tspec, err := tbl.Spec()
	if err != nil {
		return nil, err
	}
	codec, err := jsonrow.New(tspec)
	if err != nil {
		return nil, err
	}
	bt := &BuiltTable{Case: c, Spec: tspec}
	for _, lines := range c.Appends {
		var recs []*data.Record
		for _, l := range lines {
			rec, err := codec.DecodeJSON([]byte(l))
			if err != nil {
				return nil, fmt.Errorf("row %s: %w", l, err)
			}
			recs = append(recs, rec)
			// The expected row is the record as the lab prints it.
			b, err := codec.AppendJSON(nil, rec)
			if err != nil {
				return nil, err
			}
			row, err := decodeRow(b)
			if err != nil {
				return nil, err
			}
			bt.Rows = append(bt.Rows, row)
		}
		if _, err := tbl.AppendRows(ctx, func(write func(*data.Record) error) error {
			for _, r := range recs {
				if err := write(r); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return nil, err
		}
		bt.Snapshots++
	}
	if err := sortByID(bt.Rows); err != nil {
		return nil, fmt.Errorf("expected rows: %w", err)
	}
	bt.Metadata = tbl.Iceberg().MetadataLocation()
	bt.MetadataPath = localPath(bt.Metadata)
	tasks, err := tbl.Iceberg().Scan().PlanFiles(ctx)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	for _, t := range tasks {
		bt.DataFiles = append(bt.DataFiles, localPath(t.File.FilePath()))
	}
	return bt, nil
}

// localPath turns a file:// URI into a path; anything else is returned as is.
func localPath(loc string) string {
	if u, err := url.Parse(loc); err == nil && u.Scheme == "file" {
		return u.Path
	}
	return loc
}

func decodeRow(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var row map[string]any
	if err := dec.Decode(&row); err != nil {
		return nil, err
	}
	return row, nil
}

// rowID is a row's id as an integer string, whatever the reader's form.
func rowID(row map[string]any) (string, bool) {
	switch v := row["id"].(type) {
	case json.Number:
		return v.String(), true
	case string:
		return v, true
	}
	return "", false
}

// sortByID sorts rows by their id column, numerically.
func sortByID(rows []map[string]any) error {
	keys := make([]int64, len(rows))
	for i, r := range rows {
		id, ok := rowID(r)
		if !ok {
			return fmt.Errorf("row %d has no id", i)
		}
		if _, err := fmt.Sscan(id, &keys[i]); err != nil {
			return fmt.Errorf("row %d: id %q: %v", i, id, err)
		}
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	sorted := make([]map[string]any, len(rows))
	for i, j := range idx {
		sorted[i] = rows[j]
	}
	copy(rows, sorted)
	return nil
}

// Table readers, in the section's column order.
const (
	TableReaderIcebergGo = "iceberg-go scan"
	TableReaderIcebird   = "icebird"
	TableReaderDuckDB    = "duckdb read_parquet"
)

// TableReader is one column of the table section.
type TableReader struct {
	Name string
	// Available reports why the reader cannot run here, or nil.
	Available func() error
	// Read returns the table's rows, an error, or a *CrashError.
	Read func(ctx context.Context, t *BuiltTable) (*Output, error)
	// ReadBatch, when set, reads many tables in one process, with the
	// outcomes Read would give.
	ReadBatch func(ctx context.Context, ts []*BuiltTable) ([]*Output, []error)
}

// ChildCommand makes the command that runs RunIcebergScanChild in a fresh
// process: the lab binary (lab compat --iceberg-scan-child) or a test
// binary re-running itself. The caller adds the environment that names
// the table (IcebergScanEnv).
type ChildCommand func(ctx context.Context) *exec.Cmd

// TableReaders lists the section's readers. iceberg-go's scan reads data
// files on goroutines of its own, where a panic (arrow-go's on a logical
// type it does not know) cannot be recovered and ends the process, so it
// runs in a child process that child makes, one per table.
func TableReaders(child ChildCommand) []TableReader {
	bird := peers.Icebird
	bird.Timeout = PeerTimeout
	birdOne := func(ctx context.Context, t *BuiltTable) (*Output, error) {
		res, err := peers.IcebirdRead(ctx, bird, t.MetadataPath)
		if err != nil {
			return nil, peerFailure(bird.Name, err)
		}
		return peerOutput(res), nil
	}
	return []TableReader{
		{Name: TableReaderIcebergGo, Available: func() error {
			if child == nil {
				return errors.New("the iceberg-go scan needs a child process, and none was given")
			}
			return nil
		}, Read: func(ctx context.Context, t *BuiltTable) (*Output, error) { return icebergScanInChild(ctx, child, t) }},
		{Name: TableReaderIcebird, Available: bird.Available, Read: birdOne,
			ReadBatch: func(ctx context.Context, ts []*BuiltTable) ([]*Output, []error) {
				outs, errs := make([]*Output, len(ts)), make([]error, len(ts))
				paths := make([]string, len(ts))
				for i, t := range ts {
					paths[i] = t.MetadataPath
				}
				reads, err := peers.ReadMany(ctx, bird, paths, peers.ReadOptions{Limit: -1})
				for i, t := range ts {
					switch {
					case err != nil && ctx.Err() != nil:
						errs[i] = err
					case err != nil || reads[i].NotRun:
						// The batch process failed, or stopped after a
						// library panic: read the table in a process of its own.
						outs[i], errs[i] = birdOne(ctx, t)
					case reads[i].Result != nil:
						outs[i] = peerOutput(reads[i].Result)
					case libraryPanic.MatchString(reads[i].Stack):
						errs[i] = &CrashError{Reader: bird.Name, Detail: reads[i].Error}
					default:
						errs[i] = errors.New(reads[i].Error)
					}
				}
				return outs, errs
			}},
		{Name: TableReaderDuckDB, Available: peers.DuckDB.Available,
			Read: func(ctx context.Context, t *BuiltTable) (*Output, error) {
				outs, errs := duckdbReadParquet(ctx, []*BuiltTable{t})
				return outs[0], errs[0]
			},
			ReadBatch: func(ctx context.Context, ts []*BuiltTable) ([]*Output, []error) {
				outs, errs := duckdbReadParquet(ctx, ts)
				if len(ts) > 1 && ctx.Err() == nil && slices.ContainsFunc(errs, func(e error) bool { return e != nil }) {
					// One failing statement fails the batch: each table then
					// gets a process of its own, and its own outcome.
					for i, t := range ts {
						o, e := duckdbReadParquet(ctx, []*BuiltTable{t})
						outs[i], errs[i] = o[0], e[0]
					}
				}
				return outs, errs
			}},
	}
}

// IcebergScanEnv names the metadata.json the child process scans.
const IcebergScanEnv = "LAB_COMPAT_ICEBERG_SCAN"

// childResult is what the child prints: the rows, or the error the scan
// returned, or the panic recovered on the scan's own goroutine.
type childResult struct {
	Columns []Column         `json:"columns,omitempty"`
	Rows    []map[string]any `json:"rows,omitempty"`
	Error   string           `json:"error,omitempty"`
	Panic   string           `json:"panic,omitempty"`
}

// RunIcebergScanChild is the child process's work: it scans the table whose
// metadata.json $LAB_COMPAT_ICEBERG_SCAN names with iceberg-go alone
// (table.NewFromLocation, then Scan().ToArrowTable), prints the result as
// JSON on w, and returns the exit status, 0 unless w fails. A panic on
// another goroutine kills the process first, with Go's "panic:" on stderr.
func RunIcebergScanChild(w io.Writer) int {
	loc := os.Getenv(IcebergScanEnv)
	var res childResult
	func() {
		defer func() {
			if p := recover(); p != nil {
				res = childResult{Panic: fmt.Sprint(p) + "\n" + string(debug.Stack())}
			}
		}()
		if loc == "" {
			res.Error = IcebergScanEnv + " is not set"
			return
		}
		out, err := icebergScan(context.Background(), loc)
		if err != nil {
			res.Error = err.Error()
			return
		}
		res.Columns, res.Rows = out.Columns, out.Rows
	}()
	if err := json.NewEncoder(w).Encode(res); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// icebergScan reads a table as an engine on iceberg-go does: from its
// metadata location, through iceberg-go's file IO and arrow-go scan.
func icebergScan(ctx context.Context, loc string) (*Output, error) {
	tbl, err := itable.NewFromLocation(ctx, itable.Identifier{"compat", "t"}, loc, iceio.LoadFSFunc(nil, loc), nil)
	if err != nil {
		return nil, err
	}
	at, err := tbl.Scan().ToArrowTable(ctx)
	if err != nil {
		return nil, err
	}
	defer at.Release()
	tr := array.NewTableReader(at, 1024)
	defer tr.Release()
	var batches []arrow.RecordBatch
	defer func() { release(batches) }()
	for tr.Next() {
		b := tr.RecordBatch()
		b.Retain()
		batches = append(batches, b)
	}
	if err := tr.Err(); err != nil {
		return nil, err
	}
	return arrowRows(at.Schema(), batches)
}

// icebergScanInChild runs the scan in a child process under PeerTimeout. A
// child that dies (a panic on a goroutine the scan started, a signal) or
// prints no result is a crash, noted with its first "panic:" line; a
// recovered panic is a crash too; an error the scan returned is an error.
func icebergScanInChild(ctx context.Context, child ChildCommand, t *BuiltTable) (*Output, error) {
	ctx, cancel := context.WithTimeout(ctx, PeerTimeout)
	defer cancel()
	cmd := child(ctx)
	cmd.Env = append(os.Environ(), IcebergScanEnv+"="+t.Metadata)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	crash := func(detail string) error { return &CrashError{Reader: TableReaderIcebergGo, Detail: detail} }
	if ctx.Err() != nil {
		return nil, crash(fmt.Sprintf("no result within %v", PeerTimeout))
	}
	if runErr != nil {
		msg := stderr.String()
		if i := strings.Index(msg, "panic:"); i >= 0 {
			return nil, crash(firstLine(msg[i:]) + " (in a goroutine of the scan: the process died)")
		}
		return nil, crash(fmt.Sprintf("%v: %s", runErr, lastLines(msg, 3)))
	}
	var res childResult
	dec := json.NewDecoder(&stdout)
	dec.UseNumber()
	if err := dec.Decode(&res); err != nil {
		return nil, crash(fmt.Sprintf("the child printed no result: %v", err))
	}
	switch {
	case res.Panic != "":
		return nil, crash("panic: " + firstLine(res.Panic))
	case res.Error != "":
		return nil, errors.New(res.Error)
	}
	return &Output{Columns: res.Columns, Rows: res.Rows}, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// duckdbReadParquet reads each table's data files with DuckDB's
// read_parquet, as a user of DuckDB without its iceberg extension would:
// DESCRIBE for the types, then the rows, all tables in one process (one
// failing statement fails them all). DuckDB prints dates, timestamps and
// decimals itself (CAST … AS VARCHAR): node-api's JavaScript values would
// round timestamps to milliseconds and decimals to doubles, which is the
// binding's loss, not DuckDB's.
func duckdbReadParquet(ctx context.Context, ts []*BuiltTable) ([]*Output, []error) {
	outs, errs := make([]*Output, len(ts)), make([]error, len(ts))
	var sql []string
	for _, t := range ts {
		var files []string
		for _, f := range t.DataFiles {
			files = append(files, sqlString(f))
		}
		src := "read_parquet([" + strings.Join(files, ", ") + "])"
		var replace []string
		for _, f := range t.Spec.Schema.Fields() {
			switch f.Type.(type) {
			case iceberg.DateType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestampTzType,
				iceberg.TimestampNsType, iceberg.TimestampTzNsType, iceberg.DecimalType:
				replace = append(replace, fmt.Sprintf("CAST(%s AS VARCHAR) AS %s", sqlIdent(f.Name), sqlIdent(f.Name)))
			}
		}
		sel := "SELECT *"
		if len(replace) > 0 {
			sel += " REPLACE (" + strings.Join(replace, ", ") + ")"
		}
		sql = append(sql, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM "+src+")", sel+" FROM "+src)
	}
	res, err := peers.DuckDBExec(ctx, sql...)
	if err != nil {
		err = peerFailure(peers.DuckDB.Name, err)
		for i := range errs {
			errs[i] = err
		}
		return outs, errs
	}
	for i := range ts {
		out := &Output{Rows: []map[string]any{}}
		for _, r := range res.Results[2*i] {
			if len(r) != 2 {
				errs[i] = &CrashError{Reader: TableReaderDuckDB, Detail: fmt.Sprintf("DESCRIBE answered a row of %d values", len(r))}
				break
			}
			out.Columns = append(out.Columns, Column{Name: fmt.Sprint(r[0]), Type: fmt.Sprint(r[1])})
		}
		if errs[i] != nil {
			continue
		}
		for _, r := range res.Results[2*i+1] {
			if len(r) != len(out.Columns) {
				errs[i] = &CrashError{Reader: TableReaderDuckDB, Detail: fmt.Sprintf("a row of %d values for %d columns", len(r), len(out.Columns))}
				break
			}
			row := map[string]any{}
			for j, c := range out.Columns {
				row[c.Name] = r[j]
			}
			out.Rows = append(out.Rows, row)
		}
		if errs[i] == nil {
			outs[i] = out
		}
	}
	return outs, errs
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
func sqlIdent(s string) string  { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// TableMatrix holds the section's outcomes: Cells[table][reader], and for
// the readers that returned rows, Columns[table][reader][column].
type TableMatrix struct {
	Readers []string                              `json:"readers"`
	Tables  []string                              `json:"tables"`
	Cells   map[string]map[string]Cell            `json:"cells"`
	Columns map[string]map[string]map[string]Cell `json:"columns"`
	About   map[string]string                     `json:"about"`
	Order   map[string][]string                   `json:"column_order"`
}

// RunTables reads every built table with every reader and classes the
// outcomes; readers run side by side, each reading the tables in turn. An
// unavailable reader fails the run, naming it.
func RunTables(ctx context.Context, tables []*BuiltTable, readers []TableReader) (*TableMatrix, error) {
	for _, r := range readers {
		if err := r.Available(); err != nil {
			return nil, err
		}
	}
	m := &TableMatrix{Cells: map[string]map[string]Cell{}, Columns: map[string]map[string]map[string]Cell{},
		About: map[string]string{}, Order: map[string][]string{}}
	for _, t := range tables {
		m.Tables = append(m.Tables, t.Case.ID)
		m.Cells[t.Case.ID] = map[string]Cell{}
		m.Columns[t.Case.ID] = map[string]map[string]Cell{}
		m.About[t.Case.ID] = t.Case.About
		for _, f := range t.Spec.Schema.Fields() {
			m.Order[t.Case.ID] = append(m.Order[t.Case.ID], f.Name)
		}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, r := range readers {
		m.Readers = append(m.Readers, r.Name)
		wg.Go(func() {
			outs, errs := make([]*Output, len(tables)), make([]error, len(tables))
			if r.ReadBatch != nil {
				outs, errs = r.ReadBatch(ctx, tables)
			} else {
				for i, t := range tables {
					outs[i], errs[i] = r.Read(ctx, t)
				}
			}
			for i, t := range tables {
				cell, cols := ClassifyTable(t, outs[i], errs[i])
				mu.Lock()
				m.Cells[t.Case.ID][r.Name] = cell
				if cols != nil {
					m.Columns[t.Case.ID][r.Name] = cols
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return m, nil
}

// scrub makes a note the same on every machine and run: the warehouse's
// temporary directory and the random parts of file names go.
var randomName = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func scrub(s string, t *BuiltTable) string {
	if t != nil {
		if dir := filepath.Dir(filepath.Dir(filepath.Dir(t.MetadataPath))); dir != "." && dir != "/" {
			s = strings.ReplaceAll(s, "file://"+dir+"/", "")
			s = strings.ReplaceAll(s, dir+"/", "")
		}
	}
	return randomName.ReplaceAllString(s, "…")
}

// ClassifyTable classes one reader's outcome on a table: err from the read
// (a *CrashError is a crash, any other error an error), else each column
// of the table's schema compared, row by row (matched by id), with what
// the lab appended (matchValue says which forms of a value count). The
// cell is wrong when any column is, or rows are missing or extra; the
// columns' cells are returned for a reader that returned rows.
func ClassifyTable(t *BuiltTable, out *Output, err error) (Cell, map[string]Cell) {
	if err != nil {
		var crash *CrashError
		if errors.As(err, &crash) {
			return Cell{Class: Crash, Note: scrub(firstWords(crash.Detail), t)}, nil
		}
		return Cell{Class: Error, Note: scrub(firstWords(err.Error()), t)}, nil
	}
	if out == nil {
		return Cell{Class: Crash, Note: "no output and no error"}, nil
	}
	norm, nerr := normalise(out.Rows)
	if nerr != nil {
		return Cell{Class: Wrong, Note: "values do not encode as JSON: " + firstWords(nerr.Error())}, nil
	}
	got := map[string]map[string]any{}
	var problems []string
	list, _ := norm.([]any)
	for i, r := range list {
		row, ok := r.(map[string]any)
		if !ok {
			return Cell{Class: Wrong, Note: fmt.Sprintf("row %d is not an object", i)}, nil
		}
		id, ok := rowID(row)
		if !ok {
			return Cell{Class: Wrong, Note: fmt.Sprintf("row %d has no id: %s", i, short(row["id"]))}, nil
		}
		if _, dup := got[id]; dup {
			problems = append(problems, fmt.Sprintf("id=%s twice", id))
		}
		got[id] = row
	}
	var want []string
	for _, w := range t.Rows {
		id, _ := rowID(w)
		want = append(want, id)
		if _, ok := got[id]; !ok {
			problems = append(problems, fmt.Sprintf("row id=%s missing", id))
		}
	}
	if len(got) > len(t.Rows) {
		problems = append(problems, fmt.Sprintf("%d rows, want %d", len(list), len(t.Rows)))
	}
	cols := map[string]Cell{}
	var wrongCols []string
	known := map[string]bool{}
	for _, f := range t.Spec.Schema.Fields() {
		known[f.Name] = true
		vec, isVec := vector.Lookup(t.Spec.Decls, f.Name)
		reprs := map[string]bool{}
		cell := Cell{Class: OK}
		present, compared, differ := false, 0, 0
		for i, w := range t.Rows {
			g, ok := got[want[i]]
			if !ok {
				continue
			}
			v, has := g[f.Name]
			present = present || has
			var repr, diff string
			if isVec {
				repr, diff = matchVector(vec, w[f.Name], v)
			} else {
				repr, diff = matchValue(f.Type, w[f.Name], v)
			}
			compared++
			if diff != "" {
				// The first three differences: one seldom shows the pattern.
				if differ < 3 {
					if differ > 0 {
						cell.Note += "; "
					}
					cell = Cell{Class: Wrong, Note: cell.Note + fmt.Sprintf("id=%s: %s", want[i], diff)}
				}
				differ++
			}
			if repr != "" {
				reprs[repr] = true
			}
		}
		switch {
		case !present && len(got) > 0:
			cell = Cell{Class: Wrong, Note: "column missing"}
		case cell.Class == OK:
			cell.Note = strings.Join(sortedKeys(reprs), "; ")
		default:
			cell.Note += fmt.Sprintf(" (%d of %d values differ)", differ, compared)
		}
		if cell.Class == Wrong {
			wrongCols = append(wrongCols, f.Name)
		}
		cols[f.Name] = cell
	}
	var extra []string
	for _, c := range out.Columns {
		if !known[c.Name] {
			extra = append(extra, c.Name)
		}
	}
	for _, g := range got {
		for k := range g {
			if !known[k] && !contains(extra, k) {
				extra = append(extra, k)
			}
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		problems = append(problems, "columns the table does not have: "+strings.Join(extra, ", "))
	}
	switch {
	case len(problems) > 0:
		return Cell{Class: Wrong, Note: strings.Join(problems, "; ")}, cols
	case len(wrongCols) > 0:
		return Cell{Class: Wrong, Note: fmt.Sprintf("%d of %d columns: %s", len(wrongCols), len(cols), strings.Join(wrongCols, ", "))}, cols
	}
	return Cell{Class: OK}, cols
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The forms a reader may give a value in, besides the lab's own (lab read's
// JSON form), that still count as the value: matchValue and matchVector
// name the form they accepted, for the column's note.
const (
	reprFixedBytes    = "fixed bytes"          // VECTOR as its fixed[dim × width] bytes, decoded by the lab
	reprNumbers       = "numbers"              // VECTOR as an array of numbers
	reprText          = "bytes as UTF-8 text"  // binary whose text's UTF-8 bytes are the value
	reprVariantBytes  = "metadata/value bytes" // VARIANT as its two binaries, decoded by the lab
	reprVariantText   = "metadata/value bytes as UTF-8 text"
	reprDecimalNumber = "decimal as a number"
	reprJSDate        = "date as a JavaScript Date"
	reprJSTimestamp   = "timestamp as a JavaScript Date"
)

// labCodecs are one-column codecs by type name, for decoding what a reader
// returned as bytes (a VECTOR, a VARIANT) the way lab read prints it.
var labCodecs sync.Map

func labJSON(typeName string, v any) (any, error) {
	c, ok := labCodecs.Load(typeName)
	if !ok {
		spec, err := schemaspec.Load("v:" + typeName)
		if err != nil {
			return nil, err
		}
		codec, err := jsonrow.New(spec)
		if err != nil {
			return nil, err
		}
		c, _ = labCodecs.LoadOrStore(typeName, &labCodec{spec: spec, codec: codec})
	}
	lc := c.(*labCodec)
	lc.mu.Lock()
	defer lc.mu.Unlock()
	rec := data.NewRecord(lc.spec.Schema)
	rec.Set(0, v)
	b, err := lc.codec.AppendJSON(nil, rec)
	if err != nil {
		return nil, err
	}
	row, err := decodeRow(b)
	if err != nil {
		return nil, err
	}
	return row["v"], nil
}

type labCodec struct {
	mu    sync.Mutex
	spec  *schemaspec.Spec
	codec *jsonrow.Codec
}

// bytesOf reads a reader's binary value: lowercase hex (the common JSON
// form) or, failing that, text whose UTF-8 bytes are the value (hyparquet's
// default for BYTE_ARRAY without a STRING annotation).
func bytesOf(v any) (b []byte, text bool, ok bool) {
	s, ok := v.(string)
	if !ok {
		return nil, false, false
	}
	if b, err := hex.DecodeString(s); err == nil && strings.ToLower(s) == s {
		return b, false, true
	}
	return []byte(s), true, true
}

// matchVector compares a VECTOR value: the lab's numbers, want, with the
// reader's array of numbers or its fixed bytes, which the lab decodes.
func matchVector(vec vector.Declaration, want, got any) (repr, diff string) {
	if want == nil || got == nil {
		if want == nil && got == nil {
			return "", ""
		}
		return "", fmt.Sprintf("got %s, want %s", short(got), short(want))
	}
	if list, ok := got.([]any); ok {
		return reprNumbers, diffJSON("", want, list)
	}
	b, text, ok := bytesOf(got)
	if !ok {
		return "", fmt.Sprintf("got %s, want %d numbers or their bytes", short(got), vec.Dim)
	}
	if len(b) != vec.Dim*vec.Element.Width() {
		return "", fmt.Sprintf("got %d bytes, want %d", len(b), vec.Dim*vec.Element.Width())
	}
	decoded, err := labJSON(vec.TypeName(), b)
	if err != nil {
		return "", "the lab cannot decode the bytes: " + err.Error()
	}
	if d := diffJSON("", want, decoded); d != "" {
		return "", "decoded from its bytes: " + d
	}
	if text {
		return reprFixedBytes + " as UTF-8 text", ""
	}
	return reprFixedBytes, ""
}

// matchValue compares one value of Iceberg type t: want in lab read's
// form, got in the reader's. It returns the form it accepted ("" for the
// lab's own, or one the comparison does not need to name) or the first
// difference.
func matchValue(t iceberg.Type, want, got any) (repr, diff string) {
	if want == nil || got == nil {
		if want == nil && got == nil {
			return "", ""
		}
		return "", fmt.Sprintf("got %s, want %s", short(got), short(want))
	}
	mismatch := func() (string, string) { return "", fmt.Sprintf("got %s, want %s", short(got), short(want)) }
	switch t := t.(type) {
	case iceberg.BooleanType, iceberg.StringType, iceberg.UUIDType:
		if got != want {
			return mismatch()
		}
		return "", ""
	case iceberg.Int32Type, iceberg.Int64Type:
		if w, ok := want.(json.Number); !ok || !numbersEqual(w, got) {
			return mismatch()
		}
		return "", ""
	case iceberg.Float32Type, iceberg.Float64Type:
		if !floatsEqual(want, got, t == iceberg.PrimitiveTypes.Float32) {
			return mismatch()
		}
		return "", ""
	case iceberg.DecimalType:
		w, _ := want.(string)
		switch g := got.(type) {
		case string:
			if !decimalsEqual(w, g) {
				return mismatch()
			}
			return "", ""
		case json.Number:
			if !decimalsEqual(w, g.String()) {
				return reprDecimalNumber, fmt.Sprintf("got %s (a number), want %s", g, w)
			}
			return reprDecimalNumber, ""
		}
		return mismatch()
	case iceberg.DateType:
		g, ok := got.(string)
		if !ok {
			return mismatch()
		}
		if g == want {
			return "", ""
		}
		if ts, err := time.Parse(time.RFC3339Nano, g); err == nil {
			if ts.UTC().Format("2006-01-02") == want && ts.UTC().Format("15:04:05.999999999") == "00:00:00" {
				return reprJSDate, ""
			}
			return reprJSDate, fmt.Sprintf("got %s, want %s", g, want)
		}
		return mismatch()
	case iceberg.TimestampType, iceberg.TimestampTzType, iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		w, werr := parseTimestamp(fmt.Sprint(want))
		g, ok := got.(string)
		if !ok || werr != nil {
			return mismatch()
		}
		ts, err := parseTimestamp(g)
		if err != nil {
			return mismatch()
		}
		repr := ""
		if jsDate.MatchString(g) {
			repr = reprJSTimestamp
		}
		if !ts.Equal(w) {
			return repr, fmt.Sprintf("got %s, want %s", g, want)
		}
		return repr, ""
	case iceberg.BinaryType, iceberg.FixedType:
		w, _ := want.(string)
		b, text, ok := bytesOf(got)
		if !ok {
			return mismatch()
		}
		if hex.EncodeToString(b) != w {
			if text {
				return reprText, fmt.Sprintf("got the text %s (bytes %x), want the bytes %s", short(got), b, w)
			}
			return mismatch()
		}
		if text {
			return reprText, ""
		}
		return "", ""
	case *iceberg.StructType:
		g, ok := got.(map[string]any)
		w, wok := want.(map[string]any)
		if !ok || !wok {
			return mismatch()
		}
		var reprs []string
		for _, f := range t.FieldList {
			r, d := matchValue(f.Type, w[f.Name], g[f.Name])
			if d != "" {
				return "", "." + f.Name + ": " + d
			}
			if r != "" {
				reprs = append(reprs, f.Name+" "+r)
			}
		}
		for k := range g {
			if _, ok := w[k]; !ok && !slices.ContainsFunc(t.FieldList, func(f iceberg.NestedField) bool { return f.Name == k }) {
				return "", fmt.Sprintf("a field %q the struct does not have", k)
			}
		}
		return strings.Join(reprs, ", "), ""
	case *iceberg.ListType:
		g, ok := got.([]any)
		w, wok := want.([]any)
		if !ok || !wok || len(g) != len(w) {
			return mismatch()
		}
		var repr string
		for i := range w {
			r, d := matchValue(t.Element, w[i], g[i])
			if d != "" {
				return "", fmt.Sprintf("[%d]: %s", i, d)
			}
			if r != "" {
				repr = r
			}
		}
		return repr, ""
	case iceberg.VariantType, *iceberg.VariantType:
		return matchVariant(want, got)
	}
	return "", diffJSON("", want, got)
}

// jsDate is how JavaScript's Date prints itself (toISOString).
var jsDate = regexp.MustCompile(`^-?\+?\d{4,6}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// parseTimestamp reads a timestamp in the forms readers print it: lab
// read's (ISO 8601, "T", no zone or +00:00), DuckDB's ("2024-02-29
// 12:34:56.123456", "+00" for a zone), arrow-go's, JavaScript's ("…Z").
// A timestamp without a zone is read as UTC, which compares wall clocks.
func parseTimestamp(s string) (time.Time, error) {
	var err error
	for _, layout := range []string{
		"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999",
		time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z07",
	} {
		var ts time.Time
		if ts, err = time.Parse(layout, s); err == nil {
			return ts, nil
		}
	}
	return time.Time{}, err
}

// floatsEqual compares floats exactly: numbers by value (a float32 also
// when the reader printed it widened to a double), the non-finite ones by
// their names.
func floatsEqual(want, got any, single bool) bool {
	ws, wIsString := want.(string)
	gs, gIsString := got.(string)
	if wIsString || gIsString {
		return wIsString && gIsString && nonFiniteName(ws) == nonFiniteName(gs)
	}
	w, ok1 := want.(json.Number)
	g, ok2 := got.(json.Number)
	if !ok1 || !ok2 {
		return false
	}
	if numbersEqual(w, g) {
		return true
	}
	wf, err1 := w.Float64()
	gf, err2 := g.Float64()
	return single && err1 == nil && err2 == nil && float32(wf) == float32(gf)
}

// nonFiniteName is the lab's name of a non-finite float in any reader's
// spelling: arrow-go's JSON prints the infinities as "+Inf" and "-Inf".
func nonFiniteName(s string) string {
	switch s {
	case "Inf", "+Inf", "+Infinity", "inf", "+inf":
		return "Infinity"
	case "-Inf", "-inf":
		return "-Infinity"
	case "nan":
		return "NaN"
	}
	return s
}

func decimalsEqual(want, got string) bool {
	a, ok1 := new(big.Rat).SetString(want)
	b, ok2 := new(big.Rat).SetString(got)
	return ok1 && ok2 && a.Cmp(b) == 0
}

// matchVariant compares a VARIANT: the lab's JSON value with the reader's
// decoded value or, from a reader that does not know VARIANT, the group of
// metadata and value binaries, which count when the lab decodes them to
// the same value.
func matchVariant(want, got any) (repr, diff string) {
	if g, ok := got.(map[string]any); ok && isVariantGroup(g) && !isVariantGroup(want) {
		meta, text1, _ := bytesOf(g["metadata"])
		value, text2, _ := bytesOf(g["value"])
		repr = reprVariantBytes
		if text1 || text2 {
			repr = reprVariantText
		}
		v, err := pvariant.New(meta, value)
		if err == nil {
			var decoded any
			if decoded, err = labJSON("variant", v); err == nil {
				if d := diffJSON("", want, decoded); d != "" {
					return repr, "decoded from its bytes: " + d
				}
				return repr, ""
			}
		}
		return repr, fmt.Sprintf("%s the lab cannot decode (%v)", repr, err)
	}
	return "", diffJSON("", want, got)
}

// isVariantGroup reports an object of a variant's two binaries as a reader
// that does not know VARIANT shows them.
func isVariantGroup(v any) bool {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 2 {
		return false
	}
	_, ok1 := m["metadata"].(string)
	_, ok2 := m["value"].(string)
	return ok1 && ok2
}

// diffJSON compares two JSON values exactly, numbers by value (a decimal
// string equals the number), and names the first difference.
func diffJSON(path string, want, got any) string {
	switch w := want.(type) {
	case nil:
		if got != nil {
			return fmt.Sprintf("%sgot %s, want null", at(path), short(got))
		}
		return ""
	case json.Number:
		if !numbersEqual(w, got) {
			return fmt.Sprintf("%sgot %s, want %s", at(path), short(got), w)
		}
		return ""
	case string, bool:
		if got != want {
			return fmt.Sprintf("%sgot %s, want %s", at(path), short(got), short(want))
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%sgot %s, want %s", at(path), short(got), short(want))
		}
		for i := range w {
			if d := diffJSON(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); d != "" {
				return d
			}
		}
		return ""
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%sgot %s, want %s", at(path), short(got), short(want))
		}
		for _, k := range unionKeys(w, g) {
			_, inW := w[k]
			_, inG := g[k]
			if inW != inG {
				return fmt.Sprintf("%s.%s: present %v, want %v", path, k, inG, inW)
			}
			if d := diffJSON(path+"."+k, w[k], g[k]); d != "" {
				return d
			}
		}
		return ""
	}
	return fmt.Sprintf("%scannot compare %T", at(path), want)
}

func at(path string) string {
	if path == "" {
		return ""
	}
	return path + ": "
}

// TableExpected is the checked-in expected outcome of the table section
// (table_expected.json): each cell's class and, for the readers that
// returned rows, each column's.
type TableExpected struct {
	Readers []string                               `json:"readers"`
	Cells   map[string]map[string]Class            `json:"cells"`
	Columns map[string]map[string]map[string]Class `json:"columns"`
}

// ExpectedOf is the expected outcome m would check in.
func (m *TableMatrix) ExpectedOf() TableExpected {
	e := TableExpected{Readers: m.Readers, Cells: map[string]map[string]Class{}, Columns: map[string]map[string]map[string]Class{}}
	for t, row := range m.Cells {
		e.Cells[t] = map[string]Class{}
		for r, c := range row {
			e.Cells[t][r] = c.Class
		}
	}
	for t, byReader := range m.Columns {
		for r, cols := range byReader {
			if e.Columns[t] == nil {
				e.Columns[t] = map[string]map[string]Class{}
			}
			e.Columns[t][r] = map[string]Class{}
			for c, cell := range cols {
				e.Columns[t][r][c] = cell.Class
			}
		}
	}
	return e
}

// Diff lists, one line each, where m differs from want: a cell's or a
// column's class, or a table, reader or column on one side only.
func (m *TableMatrix) Diff(want TableExpected) []string {
	got := m.ExpectedOf()
	var out []string
	for _, t := range unionKeys(want.Cells, got.Cells) {
		for _, r := range unionKeys(want.Cells[t], got.Cells[t]) {
			w, wok := want.Cells[t][r]
			g, gok := got.Cells[t][r]
			switch {
			case !wok:
				out = append(out, fmt.Sprintf("%s × %s: %s, not in the expected file (%s)", t, r, g, m.Cells[t][r].Note))
			case !gok:
				out = append(out, fmt.Sprintf("%s × %s: expected %s, not computed", t, r, w))
			case w != g:
				out = append(out, fmt.Sprintf("%s × %s: got %s, want %s (%s)", t, r, g, w, m.Cells[t][r].Note))
			}
		}
	}
	for _, t := range unionKeys(want.Columns, got.Columns) {
		for _, r := range unionKeys(want.Columns[t], got.Columns[t]) {
			for _, c := range unionKeys(want.Columns[t][r], got.Columns[t][r]) {
				w, wok := want.Columns[t][r][c]
				g, gok := got.Columns[t][r][c]
				switch {
				case !wok:
					out = append(out, fmt.Sprintf("%s × %s, column %s: %s, not in the expected file (%s)", t, r, c, g, m.Columns[t][r][c].Note))
				case !gok:
					out = append(out, fmt.Sprintf("%s × %s, column %s: expected %s, not computed", t, r, c, w))
				case w != g:
					out = append(out, fmt.Sprintf("%s × %s, column %s: got %s, want %s (%s)", t, r, c, g, w, m.Columns[t][r][c].Note))
				}
			}
		}
	}
	return out
}

func unionKeys[V any](a, b map[string]V) []string {
	set := map[string]bool{}
	for k := range a {
		set[k] = true
	}
	for k := range b {
		set[k] = true
	}
	return sortedKeys(set)
}

// ReadTableExpected reads table_expected.json.
func ReadTableExpected(path string) (TableExpected, error) { return readJSONFile[TableExpected](path) }

// WriteTableExpected writes m's classes as the expected outcome.
func WriteTableExpected(path string, m *TableMatrix) error {
	b, err := json.MarshalIndent(m.ExpectedOf(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Markdown renders the section: the matrix (a row per table, a column per
// reader), each table's columns for the readers that returned rows, the
// errors and crashes in full, every wrong value's first difference in
// full, and the classes counted per reader.
func (m *TableMatrix) Markdown() string {
	var b strings.Builder
	header := func(first string) {
		b.WriteString("| " + first + " |")
		for _, r := range m.Readers {
			b.WriteString(" " + r + " |")
		}
		b.WriteString("\n|---|")
		for range m.Readers {
			b.WriteString("---|")
		}
		b.WriteString("\n")
	}
	cellText := func(c Cell) string {
		text := "**" + string(c.Class) + "**"
		if c.Note != "" {
			text += " " + escapeCell(c.Note)
		}
		return text
	}
	header("table")
	for _, t := range m.Tables {
		fmt.Fprintf(&b, "| %s |", t)
		for _, r := range m.Readers {
			fmt.Fprintf(&b, " %s |", cellText(m.Cells[t][r]))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nBy column (the note of an ok value is the form it came in, when not the lab's own; – where the reader returned no rows):\n\n")
	header("table / column")
	for _, t := range m.Tables {
		for _, c := range m.Order[t] {
			fmt.Fprintf(&b, "| %s / %s |", t, c)
			for _, r := range m.Readers {
				cols, ok := m.Columns[t][r]
				if !ok {
					b.WriteString(" – |")
					continue
				}
				cell := cols[c]
				if cell.Class == OK {
					text := "ok"
					if cell.Note != "" {
						text += " " + escapeCell(cell.Note)
					}
					fmt.Fprintf(&b, " %s |", text)
					continue
				}
				fmt.Fprintf(&b, " %s |", cellText(Cell{Class: cell.Class}))
			}
			b.WriteString("\n")
		}
	}
	var failures, wrongs []string
	for _, t := range m.Tables {
		for _, r := range m.Readers {
			c := m.Cells[t][r]
			if c.Class == Error || c.Class == Crash {
				failures = append(failures, fmt.Sprintf("- %s × %s, %s: %s", t, r, c.Class, code(c.Note)))
			}
			for _, col := range m.Order[t] {
				if cc, ok := m.Columns[t][r][col]; ok && cc.Class != OK {
					wrongs = append(wrongs, fmt.Sprintf("- %s × %s, column %s: %s", t, r, col, code(cc.Note)))
				}
			}
			if c.Class == Wrong && len(m.Columns[t][r]) > 0 && !strings.Contains(c.Note, " columns: ") {
				wrongs = append(wrongs, fmt.Sprintf("- %s × %s: %s", t, r, code(c.Note)))
			}
		}
	}
	if len(failures) > 0 {
		b.WriteString("\nErrors and crashes:\n\n" + strings.Join(failures, "\n") + "\n")
	}
	if len(wrongs) > 0 {
		b.WriteString("\nWrong values (the first difference in each column; ids are the rows' id column):\n\n" + strings.Join(wrongs, "\n") + "\n")
	}
	b.WriteString("\n| reader |")
	classes := []Class{OK, Error, Crash, Wrong}
	for _, c := range classes {
		fmt.Fprintf(&b, " %s |", c)
	}
	b.WriteString("\n|---|")
	for range classes {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, r := range m.Readers {
		n := map[Class]int{}
		for _, t := range m.Tables {
			n[m.Cells[t][r].Class]++
		}
		fmt.Fprintf(&b, "| %s |", r)
		for _, c := range classes {
			fmt.Fprintf(&b, " %d |", n[c])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// code quotes s as Markdown inline code, whatever backticks it holds.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// Markers of the table section's generated part in spec/COMPAT.md.
const (
	TablesBegin = "<!-- tables: generated by `lab compat --tables --write spec/COMPAT.md`; do not edit -->"
	TablesEnd   = "<!-- tables: end -->"
)

// WriteInto replaces the text between TablesBegin and TablesEnd in the
// file at path with the section's Markdown; a file without the markers
// gets a "Tables" heading and them, with the section, appended.
func (m *TableMatrix) WriteInto(path string) error {
	return replaceGenerated(path, TablesBegin, TablesEnd, m.Markdown(), "## Tables\n\n", "table section's markers")
}

// GeneratedTables is the generated part of the table section in the text
// of a Markdown file, without the markers and surrounding blank lines; ok
// is false when the file lacks the markers.
func GeneratedTables(text string) (string, bool) {
	i, j := strings.Index(text, TablesBegin), strings.Index(text, TablesEnd)
	if i < 0 || j < i {
		return "", false
	}
	return strings.TrimSpace(text[i+len(TablesBegin) : j]), true
}
