package compat

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/coltype-lab/lab/bench/peers"
)

// duckColumn is one column of a DuckDB-written family: the SQL that makes
// its value from the row number i, and the SQL over the column read back
// that gives the value in lab read's form (default: the column itself,
// through to_json). goExpect, when set, gives the expected value instead,
// from the generator's known data.
type duckColumn struct {
	name, value, expect string
	goExpect            func(i int) any
}

// duckFamily is a set of columns of one type family.
type duckFamily struct {
	name    string
	rows    int
	setup   []string // statements run first (CREATE TYPE)
	columns []duckColumn
	vector  string
	dim     int
	variant string
}

// duckSetting is a COPY option set users pick.
type duckSetting struct {
	name, options string
}

var duckSettings = []duckSetting{
	{"default", ""},
	{"v2-zstd", ", PARQUET_VERSION V2, COMPRESSION zstd"},
	{"v2-small-groups", ", PARQUET_VERSION V2, ROW_GROUP_SIZE 2048"},
	{"field-ids", ", FIELD_IDS 'auto'"},
}

// nullEvery makes every n-th value of an expression NULL.
func nullEvery(n int, expr string) string {
	return fmt.Sprintf("CASE WHEN i %% %d = %d THEN NULL ELSE %s END", n, n-1, expr)
}

// vectorList is a deterministic list of dim floats for row i; cast it to
// FLOAT[dim] after any CASE, which DuckDB cannot apply to arrays.
func vectorList(dim int) string {
	return fmt.Sprintf("list_transform(range(%d), x -> sin(i * 0.37 + x * 1.3)::FLOAT)", dim)
}

// intervalHex is the 12 bytes the lab reads an INTERVAL column as
// (months, days, milliseconds, little-endian) for the interval family's
// value of row i.
func intervalHex(i int) any {
	b := make([]byte, 12)
	binary.LittleEndian.PutUint32(b, uint32(i%13))
	binary.LittleEndian.PutUint32(b[4:], uint32(i%40))
	binary.LittleEndian.PutUint32(b[8:], uint32(i*37))
	return hex.EncodeToString(b)
}

var duckFamilies = []duckFamily{
	{name: "integers", rows: 5000, columns: []duckColumn{
		{name: "i8", value: "((i % 256) - 128)::TINYINT"},
		{name: "i16", value: "((i * 13 % 65536) - 32768)::SMALLINT"},
		// Values spanning the int32 range: DuckDB's V2 pages then hold
		// DELTA_BINARY_PACKED miniblocks of width 33.
		{name: "i32", value: "((i * 2654435761) % 4294967296 - 2147483648)::INTEGER"},
		{name: "i32seq", value: "(i + 3000)::INTEGER"},
		{name: "i64", value: "(i * 1000000000000007 - 2000000000000000000)::BIGINT"},
		{name: "n32", value: nullEvery(7, "(i * 3)::INTEGER")},
	}},
	{name: "unsigned", rows: 5000, columns: []duckColumn{
		{name: "u8", value: "(i % 256)::UTINYINT"},
		{name: "u16", value: "(i * 13 % 65536)::USMALLINT"},
		{name: "u32", value: "((i * 2654435761) % 4294967296)::UINTEGER"},
		{name: "u64", value: "(18446744073709551615 - i * 3)::UBIGINT", expect: "CAST(u64 AS VARCHAR)"},
	}},
	{name: "floats", rows: 5000, columns: []duckColumn{
		{name: "f", value: nullEvery(11, "(i / 7.0)::FLOAT")},
		{name: "d", value: "(i / 3.0 - 100)::DOUBLE"},
	}},
	{name: "strings", rows: 5000, columns: []duckColumn{
		{name: "s", value: nullEvery(5, "'s' || (i % 300)")},
		{name: "b", value: "encode('b' || i)", expect: "lower(hex(b))"},
		{name: "t", value: "i % 3 = 0"},
	}},
	{name: "decimals", rows: 5000, columns: []duckColumn{
		{name: "d9", value: "(i / 100.0 - 20)::DECIMAL(9,2)", expect: "CAST(d9 AS VARCHAR)"},
		{name: "d18", value: "(i * 12345.6789 - 1e6)::DECIMAL(18,4)", expect: "CAST(d18 AS VARCHAR)"},
		{name: "d38", value: "(i * 123456789012.0123456789)::DECIMAL(38,10)", expect: "CAST(d38 AS VARCHAR)"},
	}},
	{name: "temporal", rows: 5000, columns: []duckColumn{
		{name: "dt", value: "DATE '1970-01-01' + (i * 17 - 40000)::INTEGER", expect: "strftime(dt, '%Y-%m-%d')"},
		{name: "ts", value: "TIMESTAMP '2001-02-03 04:05:06.123456' + to_microseconds(i * 987654321)", expect: "strftime(ts, '%Y-%m-%dT%H:%M:%S.%f')"},
		{name: "tm", value: "TIME '00:00:00' + to_microseconds(i * 17280000 + 123)", expect: "strftime(DATE '2000-01-01' + tm, '%H:%M:%S.%f')"},
	}},
	{name: "interval", rows: 2000, columns: []duckColumn{
		{name: "iv", value: "to_months((i % 13)::INTEGER) + to_days((i % 40)::INTEGER) + to_milliseconds(i * 37)", goExpect: intervalHex},
	}},
	{name: "uuid", rows: 2000, columns: []duckColumn{
		{name: "u", value: "md5(i::VARCHAR)::UUID", expect: "CAST(u AS VARCHAR)"},
	}},
	{name: "nested", rows: 3000, columns: []duckColumn{
		{name: "l", value: nullEvery(9, "CASE WHEN i % 4 = 0 THEN []::INTEGER[] ELSE [i, NULL, i * 2][1:(i % 3) + 1] END")},
		{name: "ls", value: "['a' || i, 'b']"},
		{name: "st", value: nullEvery(6, "{'a': i::INTEGER, 'b': 'x' || i}")},
		{name: "m", value: "MAP {'k' || (i % 5): i::INTEGER, 'z': 0}"},
		{name: "ll", value: "[[i, i + 1], [], [i * 2]]"},
	}},
	{name: "json-enum", rows: 2000, setup: []string{"CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')"}, columns: []duckColumn{
		{name: "j", value: `('{"k": ' || i || '}')::JSON`, expect: "CAST(j AS VARCHAR)"},
		{name: "e", value: "(['sad', 'ok', 'happy'])[(i % 3) + 1]::mood", expect: "CAST(e AS VARCHAR)"},
	}},
	{name: "vector-16", rows: 3000, vector: "emb", dim: 16, columns: []duckColumn{
		{name: "id", value: "i::BIGINT"},
		{name: "emb", value: "(" + nullEvery(13, vectorList(16)) + ")::FLOAT[16]"},
	}},
	{name: "vector-768", rows: 1500, vector: "emb", dim: 768, columns: []duckColumn{
		{name: "id", value: "i::BIGINT"},
		{name: "emb", value: vectorList(768) + "::FLOAT[768]"},
	}},
	{name: "list-float-16", rows: 3000, vector: "emb", dim: 16, columns: []duckColumn{
		{name: "id", value: "i::BIGINT"},
		{name: "emb", value: vectorList(16)},
	}},
	{name: "variant", rows: 3000, variant: "v", columns: []duckColumn{
		{name: "id", value: "i::BIGINT"},
		{name: "v", value: nullEvery(10, `('{"user": {"id": ' || i || ', "name": "n' || (i % 50) || '"}, "tags": ["a", ' || (i % 7) || '], "score": ' || (i * 0.25) || '}')::JSON::VARIANT`),
			expect: "CAST(v AS JSON)"},
	}},
	// Dates, times, timestamps (with and without zone) and binary inside a
	// variant, and an array of dates: each printed in the form the lab
	// prints the same type as a column (hex for binary, ISO 8601).
	{name: "variant-temporal-binary", rows: 2000, variant: "v", columns: []duckColumn{
		{name: "id", value: "i::BIGINT"},
		{name: "v", value: nullEvery(10, "{'d': DATE '2020-01-01' + i::INTEGER, 'ds': [DATE '1969-12-31' - i::INTEGER, DATE '2000-02-29'], "+
			"'ts': TIMESTAMP '2001-02-03 04:05:06.123456' + to_microseconds(i * 987654321), "+
			"'tz': TIMESTAMPTZ '2001-02-03 04:05:06.5+00' + to_seconds(i), 'b': ('x' || i)::BLOB, 'tm': TIME '01:02:03.25' + to_microseconds(i)}") + "::VARIANT",
			expect: "CASE WHEN v IS NULL THEN NULL ELSE {" +
				"'b': lower(hex(variant_extract(v, 'b')::BLOB)), " +
				"'d': strftime(variant_extract(v, 'd')::DATE, '%Y-%m-%d'), " +
				"'ds': list_transform(variant_extract(v, 'ds')::DATE[], x -> strftime(x, '%Y-%m-%d')), " +
				"'tm': strftime(DATE '2000-01-01' + variant_extract(v, 'tm')::TIME, '%H:%M:%S.%f'), " +
				"'ts': strftime(variant_extract(v, 'ts')::TIMESTAMP, '%Y-%m-%dT%H:%M:%S.%f'), " +
				"'tz': strftime(variant_extract(v, 'tz')::TIMESTAMPTZ AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%f') || '+00:00'} END"},
	}},
	// Keys the shredding leaves in the residual: DuckDB writes some such
	// objects with their keys out of order, which VariantEncoding.md forbids.
	{name: "variant-residual", rows: 500, variant: "v", columns: []duckColumn{
		{name: "id", value: "i::BIGINT"},
		{name: "v", value: `('{"zeta": ' || i || ', "user": {"id": ' || i || ', "zz": 1, "aa": 2}, "alpha": "x", "mid": [1]}')::JSON::VARIANT`,
			expect: "CAST(v AS JSON)"},
	}},
}

// variantSettings are the shredding choices for the variant families.
var variantSettings = []duckSetting{
	{"shredded-explicit", ", SHREDDING {v: 'STRUCT(user STRUCT(id BIGINT, name VARCHAR), score DECIMAL(18,2))'}"},
}

// DuckDBCases writes every DuckDB family with every setting into dir and
// reads DuckDB's own values back, in one DuckDB process.
func DuckDBCases(ctx context.Context, dir string) ([]*WriterCase, error) {
	type job struct {
		c       *WriterCase
		f       duckFamily
		select_ int // index of the read-back statement
	}
	var sql []string
	var jobs []job
	seenSetup := map[string]bool{}
	add := func(f duckFamily, s duckSetting) {
		for _, st := range f.setup {
			if !seenSetup[st] {
				seenSetup[st] = true
				sql = append(sql, st)
			}
		}
		path := filepath.Join(dir, "duckdb-"+s.name+"-"+f.name+".parquet")
		var values, expects, names []string
		for _, col := range f.columns {
			names = append(names, col.name)
			values = append(values, fmt.Sprintf("%s AS %s", col.value, col.name))
			e := col.expect
			if e == "" {
				e = col.name
			}
			expects = append(expects, fmt.Sprintf("'%s': %s", col.name, e))
		}
		sql = append(sql, fmt.Sprintf("COPY (SELECT %s FROM range(%d) t(i)) TO '%s' (FORMAT parquet%s)",
			strings.Join(values, ", "), f.rows, path, s.options))
		sql = append(sql, fmt.Sprintf("SELECT to_json({%s})::VARCHAR FROM read_parquet('%s')", strings.Join(expects, ", "), path))
		jobs = append(jobs, job{
			c: &WriterCase{Writer: "duckdb", Setting: s.name, Family: f.name, Path: path, Columns: names,
				Vector: f.vector, Dim: f.dim, Variant: f.variant},
			f: f, select_: len(sql) - 1,
		})
	}
	for _, f := range duckFamilies {
		for _, s := range duckSettings {
			add(f, s)
		}
		if f.variant != "" {
			for _, s := range variantSettings {
				add(f, s)
			}
		}
	}
	res, err := peers.DuckDBExec(ctx, sql...)
	if err != nil {
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	var out []*WriterCase
	for _, j := range jobs {
		rows := res.Results[j.select_]
		if len(rows) != j.f.rows {
			return nil, fmt.Errorf("%s: DuckDB read back %d rows, wrote %d", j.c.ID(), len(rows), j.f.rows)
		}
		for i, r := range rows {
			text, ok := r[0].(string)
			if !ok {
				return nil, fmt.Errorf("%s: row %d: DuckDB's to_json is %T", j.c.ID(), i, r[0])
			}
			dec := json.NewDecoder(strings.NewReader(text))
			dec.UseNumber()
			var row map[string]any
			if err := dec.Decode(&row); err != nil {
				return nil, fmt.Errorf("%s: row %d: %w", j.c.ID(), i, err)
			}
			for _, col := range j.f.columns {
				switch {
				case col.goExpect != nil && row[col.name] != nil:
					row[col.name] = col.goExpect(i)
				case strings.HasPrefix(col.expect, "CAST(") && strings.HasSuffix(col.expect, " AS JSON)"):
					// A JSON column comes back as its text.
					if s, ok := row[col.name].(string); ok {
						row[col.name] = decodeJSON(s)
					}
				}
			}
			j.c.Rows = append(j.c.Rows, row)
		}
		out = append(out, j.c)
	}
	return out, nil
}

func decodeJSON(s string) any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return s
	}
	return v
}
