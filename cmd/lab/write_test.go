package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rwSchema has every Iceberg type the registry writes, nested types, and the
// lab's VECTOR (every element type), VARIANT and FILE columns.
const rwSchema = `b:boolean,i:int,l:long!,f:float,d:double,dec:decimal(38,10),dt:date,tm:time,` +
	`ts:timestamp,tstz:timestamptz,tsns:timestamp_ns,tstzns:timestamptz_ns,s:string,u:uuid,` +
	`fx:fixed[3],bin:binary,st:struct<a:int!,b:list<string>>,li:list<long!>,m:map<string,double>,` +
	`mk:map<date,struct<x:int>>,v:variant,emb:vector<float32,3>,e64:vector<float64,2>,` +
	`e16:vector<float16,2>,e8:vector<int8,2>,img:file`

// rwRows are rows in the exact form lab read prints: extremes of every
// numeric type, non-finite floats, -0, pre-epoch and far dates and times,
// escapes, empty containers, null elements, map entry order, both map forms,
// and a row of nulls.
var rwRows = []string{
	`{"b":true,"i":-2147483648,"l":9223372036854775807,"f":3.4028235e+38,"d":-1.7976931348623157e+308,` +
		`"dec":"-1234567890123456789012345678.9012345678","dt":"1969-12-31","tm":"23:59:59.999999",` +
		`"ts":"1900-01-01T00:00:00.000001","tstz":"2017-11-16T22:31:08.123456+00:00",` +
		`"tsns":"1677-09-21T00:12:43.145224192","tstzns":"2262-04-11T23:47:16.854775807+00:00",` +
		`"s":"héllo \"q\" \\ \n\t<&>","u":"f79c3e09-677c-4bbd-a479-3f349cb785e7","fx":"000102","bin":"",` +
		`"st":{"a":1,"b":["x",null]},"li":[],"m":{"z":1.5,"a":"NaN","n":null},` +
		`"mk":{"keys":["2020-02-29"],"values":[{"x":null}]},"v":{"a":[1,2.5,"s",null,true,{"k":{}},[]],"b":-7},` +
		`"emb":["NaN","Infinity","-Infinity"],"e64":[5e-324,-0],"e16":[65504,5.9604645e-8],"e8":[-128,127],` +
		`"img":{"uri":"sub/dir/a.png","offset":0,"size":10,"content_type":"image/png",` +
		`"checksum":"sha256:BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD","inline":null}}`,
	`{"b":null,"i":null,"l":0,"f":null,"d":null,"dec":null,"dt":null,"tm":null,"ts":null,"tstz":null,` +
		`"tsns":null,"tstzns":null,"s":null,"u":null,"fx":null,"bin":null,"st":null,"li":null,"m":null,` +
		`"mk":null,"v":null,"emb":null,"e64":null,"e16":null,"e8":null,"img":null}`,
	`{"b":false,"i":2147483647,"l":-9223372036854775808,"f":-0,"d":1e-7,"dec":"0.0000000001",` +
		`"dt":"9999-12-31","tm":"00:00:00.000000","ts":"1970-01-01T00:00:00.000000",` +
		`"tstz":"1969-12-31T23:59:59.999999+00:00","tsns":"1970-01-01T00:00:00.000000000",` +
		`"tstzns":"1970-01-01T00:00:00.000000001+00:00","s":"","u":"00000000-0000-0000-0000-000000000000",` +
		`"fx":"ffffff","bin":"00ff","st":{"a":-1,"b":[]},"li":[1,-1],"m":{},"mk":{"keys":[],"values":[]},` +
		`"v":"just a string","emb":[1.5,-0,1e-45],"e64":[0.1,1.7976931348623157e+308],"e16":[-0,1],` +
		`"e8":[0,-1],"img":{"uri":null,"offset":null,"size":null,"content_type":null,"checksum":null,"inline":"00ff"}}`,
}

// withoutVariant drops the v column, which the Avro model cannot write.
func withoutVariant(rows []string) (schema string, out []string) {
	schema = strings.Replace(rwSchema, "v:variant,", "", 1)
	for _, r := range rows {
		var fields []string
		for _, v := range []string{`"v":{"a":[1,2.5,"s",null,true,{"k":{}},[]],"b":-7},`, `"v":null,`, `"v":"just a string",`} {
			if strings.Contains(r, v) {
				r = strings.Replace(r, v, "", 1)
				fields = append(fields, v)
			}
		}
		if len(fields) != 1 {
			panic("row without exactly one v value")
		}
		out = append(out, r)
	}
	return schema, out
}

func rwMustRun(t *testing.T, bin, dir, stdin string, args ...string) string {
	t.Helper()
	out, errOut, code := runWith(t, bin, dir, nil, stdin, args...)
	if code != 0 {
		t.Fatalf("lab %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

func rwWriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rwReadBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWrite runs lab write (and lab read to check it) as a user would. One
// binary serves every part: building it is the slow step.
func TestWrite(t *testing.T) {
	bin := labBinary(t)
	t.Run("round trips", func(t *testing.T) { testWriteRoundTrips(t, bin) })
	t.Run("errors", func(t *testing.T) { testWriteErrors(t, bin) })
	t.Run("metrics warning", func(t *testing.T) { testWriteMetricsWarning(t, bin) })
	t.Run("output safety", func(t *testing.T) { testWriteOutputSafety(t, bin) })
	t.Run("configuration precedence", func(t *testing.T) { testWriteConfigPrecedence(t, bin) })
	t.Run("vector layouts", func(t *testing.T) { testWriteVectorLayouts(t, bin) })
}

// Every VECTOR layout, encoding and codec is a --property of lab write; lab
// read prints the rows that were written, and lab vector search finds
// them. Bad values are refused naming the key.
func testWriteVectorLayouts(t *testing.T, bin string) {
	work := t.TempDir()
	const schema = "id:long!,emb:vector<float32,3>,tag:string"
	rows := []string{
		`{"id":0,"emb":[1,0,0],"tag":"a"}`,
		`{"id":1,"emb":null,"tag":null}`,
		`{"id":2,"emb":[0,1,0.5],"tag":"c"}`,
		`{"id":3,"emb":[-0.25,0,1],"tag":"d"}`,
	}
	in := strings.Join(rows, "\n") + "\n"
	rwWriteFile(t, filepath.Join(work, "rows.jsonl"), in)
	for _, layout := range []string{"flba", "list", "vector-repetition", "fixed-size-list"} {
		for _, enc := range []string{"plain", "byte-stream-split"} {
			for _, codec := range []string{"uncompressed", "zstd"} {
				name := layout + "-" + enc + "-" + codec + ".parquet"
				rwMustRun(t, bin, work, "", "write", "-q", "--schema", schema, "--input", "rows.jsonl", "--compression", codec,
					"--property", "write.parquet.vector-layout.column.emb="+layout,
					"--property", "write.parquet.vector-encoding.column.emb="+enc,
					"--property", "write.parquet.stats-enabled.column.emb=true", name)
				if got := rwMustRun(t, bin, work, "", "read", "-q", name); got != in {
					t.Fatalf("%s: lab read gives\n%s\nwant\n%s", name, got, in)
				}
				out := rwMustRun(t, bin, work, "", "vector", "search", name, "--column", "emb", "--query", "[0,1,0.5]", "--k", "1", "--metric", "l2", "--json")
				if !strings.Contains(strings.Join(strings.Fields(out), ""), `"row":2,"score":0`) {
					t.Fatalf("%s: lab vector search: %s", name, out)
				}
			}
		}
	}
	_, errOut, code := runWith(t, bin, work, nil, "", "write", "-q", "--schema", schema, "--input", "rows.jsonl",
		"--property", "write.parquet.vector-layout.column.emb=columnar", "bad.parquet")
	if code == 0 || !strings.Contains(errOut, "write.parquet.vector-layout.column.emb") || !strings.Contains(errOut, `"columnar" is not a VECTOR layout`) {
		t.Fatalf("bad layout: exit %d, %s", code, errOut)
	}
	_, errOut, code = runWith(t, bin, work, nil, "", "write", "-q", "--schema", schema, "--input", "rows.jsonl",
		"--property", "write.parquet.vector-layout.column.tag=list", "bad.parquet")
	if code == 0 || !strings.Contains(errOut, `column "tag" is not a VECTOR column`) {
		t.Fatalf("layout of a non-VECTOR column: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(work, "bad.parquet")); !os.IsNotExist(err) {
		t.Fatal("a refused write left bad.parquet")
	}
}

func testWriteRoundTrips(t *testing.T, bin string) {
	work := t.TempDir()

	t.Run("round trip parquet, every type", func(t *testing.T) {
		in := strings.Join(rwRows, "\n") + "\n"
		rwWriteFile(t, filepath.Join(work, "rows.jsonl"), in)
		rwMustRun(t, bin, work, "", "write", "-q", "--schema", rwSchema, "--input", "rows.jsonl", "rt1.parquet")
		first := rwMustRun(t, bin, work, "", "read", "-q", "rt1.parquet")
		if first != in {
			t.Fatalf("read differs from what was written:\n got %s\nwant %s", first, in)
		}
		// Write what was read, from stdin this time: same rows, same bytes.
		rwMustRun(t, bin, work, first, "write", "-q", "--schema", rwSchema, "rt2.parquet")
		if second := rwMustRun(t, bin, work, "", "read", "-q", "rt2.parquet"); second != first {
			t.Fatalf("second read differs:\n got %s\nwant %s", second, first)
		}
		if !bytes.Equal(rwReadBytes(t, filepath.Join(work, "rt1.parquet")), rwReadBytes(t, filepath.Join(work, "rt2.parquet"))) {
			t.Error("write → read → write did not reproduce the Parquet file byte for byte")
		}
	})
	t.Run("round trip avro, every type but variant", func(t *testing.T) {
		schema, rows := withoutVariant(rwRows)
		in := strings.Join(rows, "\n") + "\n"
		rwMustRun(t, bin, work, in, "write", "-q", "--schema", schema, "rt.avro")
		first := rwMustRun(t, bin, work, "", "read", "-q", "rt.avro")
		if first != in {
			t.Fatalf("read differs from what was written:\n got %s\nwant %s", first, in)
		}
		rwMustRun(t, bin, work, first, "write", "-q", "--schema", schema, "rt2.avro")
		if second := rwMustRun(t, bin, work, "", "read", "-q", "--format", "avro", "rt2.avro"); second != first {
			t.Fatalf("second read differs:\n got %s\nwant %s", second, first)
		}
	})
	t.Run("variants round trip shredded and unshredded", func(t *testing.T) {
		var sb strings.Builder
		for i := range 200 {
			tags := []string{`[]`, `["a"]`, `["a","b"]`}[i%3]
			fmt.Fprintf(&sb, `{"id":%d,"doc":{"tags":%s,"user":{"id":%d,"name":"u%d"}}}`+"\n", i, tags, i*1000, i)
		}
		sb.WriteString(`{"id":200,"doc":[]}` + "\n" + `{"id":201,"doc":null}` + "\n" + `{"id":202,"doc":{"tags":"not a list","x":1.25}}` + "\n")
		in := sb.String()
		for _, shred := range []string{"--shred-variants=false", "--shred-variants"} {
			out := "variant" + strings.TrimPrefix(shred, "--shred-variants") + ".parquet"
			rwMustRun(t, bin, work, in, "write", "-q", "--schema", "id:long!,doc:variant", shred, out)
			if got := rwMustRun(t, bin, work, "", "read", "-q", out); got != in {
				t.Fatalf("%s: read back differs:\n%s", shred, firstDiff(got, in))
			}
		}
		insp := rwMustRun(t, bin, work, "", "inspect", "variant.parquet")
		if !strings.Contains(insp, "VARIANT shredded") {
			t.Errorf("--shred-variants did not shred:\n%s", insp)
		}
	})
	t.Run("input is normalized to the printed form", func(t *testing.T) {
		schema := "i:int,f:float,d:double,dec:decimal(6,2),tm:time,ts:timestamp,tstz:timestamptz,u:uuid,bin:binary,m:map<string,int>,v:variant,e:vector<float16,1>"
		for _, tt := range []struct{ in, want string }{
			{`{"i": 7}`, `"i":7`},
			{`{"f": 0.1}`, `"f":0.1`},
			{`{"f": 16777217}`, `"f":16777216`}, // nearest float32
			{`{"d": 1E+2}`, `"d":100`},
			{`{"dec": "1.5"}`, `"dec":"1.50"`},
			{`{"dec": -3}`, `"dec":"-3.00"`},
			{`{"tm": "01:02:03"}`, `"tm":"01:02:03.000000"`},
			{`{"ts": "2020-01-02T03:04:05.5"}`, `"ts":"2020-01-02T03:04:05.500000"`},
			{`{"tstz": "2020-01-02T03:04:05Z"}`, `"tstz":"2020-01-02T03:04:05.000000+00:00"`},
			{`{"tstz": "2020-01-02T03:04:05-02:30"}`, `"tstz":"2020-01-02T05:34:05.000000+00:00"`},
			{`{"u": "F79C3E09-677C-4BBD-A479-3F349CB785E7"}`, `"u":"f79c3e09-677c-4bbd-a479-3f349cb785e7"`},
			{`{"bin": "DEADbeef"}`, `"bin":"deadbeef"`},
			{`{"m": {"b": 1, "a": 2}}`, `"m":{"b":1,"a":2}`}, // entry order kept
			{`{"v": {"b": 1, "a": [1, "x"]}}`, `"v":{"a":[1,"x"],"b":1}`},
			{`{"e": [0.1]}`, `"e":[0.099975586]`}, // nearest float16
		} {
			out := rwMustRun(t, bin, work, tt.in+"\n", "write", "-q", "--overwrite", "--schema", schema, "norm.parquet")
			_ = out
			got := rwMustRun(t, bin, work, "", "read", "-q", "norm.parquet")
			if !strings.Contains(got, tt.want) {
				t.Errorf("%s read back as %s, want it to contain %s", tt.in, got, tt.want)
			}
		}
	})
	t.Run("csv input", func(t *testing.T) {
		csv := "name,id,emb,st,img\n" +
			"alice,1,\"[1,2,3]\",\"{\"\"a\"\":5,\"\"b\"\":[\"\"x\"\"]}\",\"{\"\"inline\"\":\"\"ff\"\"}\"\n" +
			",2,,,\n"
		rwWriteFile(t, filepath.Join(work, "in.csv"), csv)
		rwMustRun(t, bin, work, "", "write", "-q", "--schema", "id:long!,name:string,emb:vector<int8,3>,st:struct<a:int,b:list<string>>,img:file<inline>", "--input", "in.csv", "csv.parquet")
		got := rwMustRun(t, bin, work, "", "read", "-q", "csv.parquet")
		want := `{"id":1,"name":"alice","emb":[1,2,3],"st":{"a":5,"b":["x"]},"img":{"inline":"ff"}}` + "\n" +
			`{"id":2,"name":null,"emb":null,"st":null,"img":null}` + "\n"
		if got != want {
			t.Fatalf("csv read back as\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("schema as Iceberg JSON with the lab's types", func(t *testing.T) {
		schemaJSON := `{"type":"struct","schema-id":0,"fields":[
			{"id":1,"name":"id","required":true,"type":"long"},
			{"id":2,"name":"emb","required":false,"type":"vector<float32,2>"},
			{"id":3,"name":"img","required":false,"type":"file<uri,size>"},
			{"id":10,"name":"tags","required":false,"type":{"type":"list","element-id":11,"element":"string","element-required":false}}]}`
		rwWriteFile(t, filepath.Join(work, "schema.json"), schemaJSON)
		in := `{"id":1,"emb":[0.5,-1],"img":{"uri":"a.bin","size":4},"tags":["t"]}` + "\n"
		rwMustRun(t, bin, work, in, "write", "-q", "--schema", "@schema.json", "json.parquet")
		if got := rwMustRun(t, bin, work, "", "read", "-q", "json.parquet"); got != in {
			t.Fatalf("read back as %s, want %s", got, in)
		}
		// The FILE and VECTOR annotations reached the footer.
		insp := rwMustRun(t, bin, work, "", "inspect", "json.parquet")
		for _, want := range []string{"FILE", "VECTOR"} {
			if !strings.Contains(insp, want) {
				t.Errorf("lab inspect shows no %s annotation:\n%s", want, insp)
			}
		}
	})
	t.Run("summary, --json and progress lines", func(t *testing.T) {
		in := `{"id":1,"x":1.5}` + "\n" + `{"id":2,"x":"NaN"}` + "\n" + `{"id":3}` + "\n"
		out, errOut, code := runWith(t, bin, work, nil, in, "write", "--schema", "id:long!,x:double", "--json", "sum.parquet")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var s dataFileSummary
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("--json output: %v\n%s", err, out)
		}
		if s.Format != "PARQUET" || s.RecordCount != 3 || s.FileSizeBytes != int64(len(rwReadBytes(t, filepath.Join(work, "sum.parquet")))) {
			t.Errorf("summary %+v", s)
		}
		if len(s.Columns) != 2 || s.Columns[1].Name != "x" || s.Columns[1].Values != 3 || s.Columns[1].Nulls != 1 ||
			s.Columns[1].NaNs == nil || *s.Columns[1].NaNs != 1 {
			t.Errorf("column counts %+v", s.Columns)
		}
		if !strings.HasPrefix(errOut, "lab: 3 rows written to sum.parquet in ") {
			t.Errorf("stderr is not a plain progress line: %q", errOut)
		}
		out, errOut, _ = runWith(t, bin, work, nil, in, "write", "--schema", "id:long!,x:double", "--overwrite", "-q", "sum.parquet")
		if errOut != "" || !strings.Contains(out, "wrote sum.parquet: PARQUET, 3 records") || !strings.Contains(out, "x       2   3       1      1") {
			t.Errorf("--quiet summary: stdout %q stderr %q", out, errOut)
		}
	})
}

// An invalid metrics mode is ignored with a warning, as Iceberg's
// MetricsConfig does: the file is written and the warning printed.
func testWriteMetricsWarning(t *testing.T, bin string) {
	work := t.TempDir()
	_, stderr, code := runWith(t, bin, work, nil, `{"id":1}`+"\n", "write", "-q", "--schema", "id:long",
		"--property", "write.metadata.metrics.column.id=bogus(3)", "out.parquet")
	if code != 0 || !strings.Contains(stderr, "lab: warning:") || !strings.Contains(stderr, "bogus(3)") {
		t.Fatalf("exit %d, stderr %q: want the file written and the invalid mode warned about", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "out.parquet")); err != nil {
		t.Fatal(err)
	}
}

func testWriteErrors(t *testing.T, bin string) {
	work := t.TempDir()
	const schema = "id:long!,i:int,dec:decimal(4,2),emb:vector<float32,3>,img:file<uri,inline,offset,size>"
	rwWriteFile(t, filepath.Join(work, "dim.jsonl"), `{"id":1,"emb":[1,2,3]}`+"\n\n"+`{"id":2,"emb":[1,2]}`+"\n")
	rwWriteFile(t, filepath.Join(work, "missing.csv"), "i,emb\n1,\"[1,2,3]\"\n")
	rwWriteFile(t, filepath.Join(work, "extra.csv"), "id,nope\n1,2\n")
	rwWriteFile(t, filepath.Join(work, "cells.csv"), "id,i\n1,2\n3\n")
	for _, tt := range []struct {
		name  string
		stdin string
		args  []string
		code  int
		msg   string
	}{
		{"no schema", "", []string{"out.parquet"}, 2, "--schema is required"},
		{"bad schema type", "", []string{"--schema", "id:lon", "out.parquet"}, 2, `column "id": unknown type "lon"`},
		{"bad schema syntax", "", []string{"--schema", "id:long,", "out.parquet"}, 2, "want a column name"},
		{"nested vector", "", []string{"--schema", "s:struct<e:vector<float32,2>>", "out.parquet"}, 2, "VECTOR columns are top-level only"},
		{"bad vector element", "", []string{"--schema", "e:vector<bfloat16,2>", "out.parquet"}, 2, "no Parquet representation"},
		{"bad schema JSON", "", []string{"--schema", `{"type":"struct","fields":[{"id":1}]}`, "out.parquet"}, 2, "schema JSON"},
		{"missing schema file", "", []string{"--schema", "@nope.json", "out.parquet"}, 2, "nope.json"},
		{"bad property", "", []string{"--schema", schema, "--property", "novalue", "out.parquet"}, 2, `--property "novalue": want key=value`},
		{"unknown property", "", []string{"--schema", schema, "--property", "write.parquet.bogus=1", "out.parquet"}, 2, "write property write.parquet.bogus is not honoured by the parquet-generic model"},
		{"unknown avro property", "", []string{"--schema", "id:long", "--property", "write.avro.codec=zstd", "out.avro"}, 2, "write property write.avro.codec is not honoured"},
		{"unknown format", "", []string{"--schema", schema, "--format", "lance", "out.parquet"}, 2, "Invalid file format: lance"},
		{"unregistered format", "", []string{"--schema", schema, "--format", "orc", "out.orc"}, 2, "Format model is not registered for format ORC and type *data.Record"},
		{"no output argument", "", []string{"--schema", schema}, 2, "accepts 1 arg(s)"},
		{"missing input", "", []string{"--schema", schema, "--input", "nope.jsonl", "out.parquet"}, 1, "nope.jsonl"},
		{"bad JSON line", `{"id":1}` + "\n" + `{"id":2,,}` + "\n", []string{"--schema", schema, "out.parquet"}, 1, "stdin:2: not JSON"},
		{"row not an object", "[1]\n", []string{"--schema", schema, "out.parquet"}, 1, "stdin:1: a row is a JSON object, got an array"},
		{"wrong vector dimension", "", []string{"--schema", schema, "--input", "dim.jsonl", "out.parquet"}, 1, `dim.jsonl:3: column "emb": 2 values, want 3`},
		{"vector element not a number", `{"id":1,"emb":[1,"x",3]}`, []string{"--schema", schema, "out.parquet"}, 1, `column "emb": element 1: "x" is not a number`},
		{"csv missing required column", "", []string{"--schema", schema, "--input", "missing.csv", "out.parquet"}, 1, `missing.csv:1: header has no column "id", which the schema requires`},
		{"csv unknown column", "", []string{"--schema", schema, "--input", "extra.csv", "out.parquet"}, 1, `extra.csv:1: header names column "nope"`},
		{"csv short row", "", []string{"--schema", schema, "--input", "cells.csv", "out.parquet"}, 1, "cells.csv:3: 1 cells, the header has 2"},
		{"unknown column", `{"id":1,"zz":2}`, []string{"--schema", schema, "out.parquet"}, 1, `stdin:1: no column "zz" in the schema`},
		{"required null", `{"id":null}`, []string{"--schema", schema, "out.parquet"}, 1, `stdin:1: column "id": required, but null or missing`},
		{"int out of range", `{"id":1,"i":2147483648}`, []string{"--schema", schema, "out.parquet"}, 1, `column "i": 2147483648 is out of range for int`},
		{"fraction in an int", `{"id":1.5}`, []string{"--schema", schema, "out.parquet"}, 1, `column "id": 1.5 is not an integer`},
		{"decimal needs rounding", `{"id":1,"dec":"1.234"}`, []string{"--schema", schema, "out.parquet"}, 1, "has 3 digits after the point, decimal(4,2) keeps 2 (no rounding)"},
		{"decimal too wide", `{"id":1,"dec":"123.4"}`, []string{"--schema", schema, "out.parquet"}, 1, "needs 5 digits, decimal(4,2) holds 4"},
		{"FILE dot segments", `{"id":1,"img":{"uri":"../../etc/passwd"}}`, []string{"--schema", schema, "out.parquet"}, 1, `column "img": FILE uri "../../etc/passwd" field uri: dot-segment`},
		{"FILE unknown scheme", `{"id":1,"img":{"uri":"gopher://example.com/x"}}`, []string{"--schema", schema, "out.parquet"}, 1, `scheme-not-allowed: scheme "gopher" is not allowed`},
		{"FILE outside the root", `{"id":1,"img":{"uri":"/etc/passwd"}}`, []string{"--schema", schema, "out.parquet"}, 1, "outside-root"},
		{"FILE spec rule", `{"id":1,"img":{"offset":3}}`, []string{"--schema", schema, "out.parquet"}, 1, "must-resolve"},
		{"FILE unknown child", `{"id":1,"img":{"url":"a"}}`, []string{"--schema", schema, "out.parquet"}, 1, `no field "url"`},
		{"variant in avro", `{"v":1}`, []string{"--schema", "v:variant", "out.avro"}, 1, "variant is not supported by the Avro model"},
		// Bad usage, exit 2, naming the codecs the format takes.
		{"bad compression", `{"id":1}`, []string{"--schema", schema, "--compression", "zip", "out.parquet"}, 2, `--compression zip: PARQUET takes zstd, snappy`},
		{"avro container codec name", `{"id":1}`, []string{"--schema", schema, "--compression", "deflate", "out.avro"}, 2, `--compression deflate: AVRO takes uncompressed, snappy, gzip, zstd`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"write", "-q"}, tt.args...)
			before := rwDirNames(t, work)
			_, errOut, code := runWith(t, bin, work, nil, tt.stdin, args...)
			if code != tt.code || !strings.Contains(errOut, tt.msg) {
				t.Fatalf("exit %d, stderr %q; want exit %d with %q", code, errOut, tt.code, tt.msg)
			}
			if after := rwDirNames(t, work); !slices.Equal(before, after) {
				t.Fatalf("a failed write left files behind: before %v, after %v", before, after)
			}
		})
	}
	t.Run("FILE policy can allow more", func(t *testing.T) {
		in := `{"id":1,"img":{"uri":"https://media.example.com/a.png"}}`
		if _, errOut, code := runWith(t, bin, work, nil, in, "write", "-q", "--schema", schema, "--file-scheme", "https", "--file-host", "media.example.com", "web.parquet"); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if _, errOut, code := runWith(t, bin, work, nil, `{"id":1,"img":{"uri":"gopher://x/y"}}`, "write", "-q", "--schema", schema, "--check-references=false", "any.parquet"); code != 0 {
			t.Fatalf("--check-references=false: exit %d: %s", code, errOut)
		}
	})
}

func rwDirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func testWriteOutputSafety(t *testing.T, bin string) {
	work := t.TempDir()
	out := filepath.Join(work, "keep.parquet")
	rwMustRun(t, bin, work, `{"id":1}`, "write", "-q", "--schema", "id:long", out)
	original := rwReadBytes(t, out)

	t.Run("existing output without --overwrite stays untouched", func(t *testing.T) {
		_, errOut, code := runWith(t, bin, work, nil, `{"id":2}`, "write", "-q", "--schema", "id:long", out)
		if code != 1 || !strings.Contains(errOut, "already exists; pass --overwrite to replace it") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !bytes.Equal(rwReadBytes(t, out), original) {
			t.Fatal("the existing file changed")
		}
	})
	t.Run("a failed --overwrite keeps the old file", func(t *testing.T) {
		_, errOut, code := runWith(t, bin, work, nil, `{"id":2}`+"\n"+`{"id":"x"}`, "write", "-q", "--overwrite", "--schema", "id:long", out)
		if code != 1 || !strings.Contains(errOut, `stdin:2: column "id"`) {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !bytes.Equal(rwReadBytes(t, out), original) {
			t.Fatal("a failed write replaced the existing file")
		}
		if names := rwDirNames(t, work); !slices.Equal(names, []string{"keep.parquet"}) {
			t.Fatalf("temporary files left behind: %v", names)
		}
	})
	t.Run("--overwrite replaces it", func(t *testing.T) {
		rwMustRun(t, bin, work, `{"id":2}`, "write", "-q", "--overwrite", "--schema", "id:long", out)
		if got := rwMustRun(t, bin, work, "", "read", "-q", out); got != `{"id":2}`+"\n" {
			t.Fatalf("after --overwrite: %s", got)
		}
	})
}

// testWriteConfigPrecedence: the output format comes from --format, then
// LAB_WRITE_FORMAT, then write.format in lab.yaml, then the default (auto:
// by extension, Parquet for an unknown one).
func testWriteConfigPrecedence(t *testing.T, bin string) {
	work := t.TempDir()
	magic := func(name string) string {
		b := rwReadBytes(t, filepath.Join(work, name))
		return string(b[:4])
	}
	const parquetMagic, avroMagic = "PAR1", "Obj\x01"
	for _, tt := range []struct {
		name, yaml string
		env        []string
		flags      []string
		want       string
	}{
		{"default", "", nil, nil, parquetMagic},
		{"lab.yaml", "write:\n  format: avro\n", nil, nil, avroMagic},
		{"environment over lab.yaml", "write:\n  format: avro\n", []string{"LAB_WRITE_FORMAT=parquet"}, nil, parquetMagic},
		{"flag over environment", "write:\n  format: parquet\n", []string{"LAB_WRITE_FORMAT=parquet"}, []string{"--format", "avro"}, avroMagic},
	} {
		t.Run(tt.name, func(t *testing.T) {
			yaml := filepath.Join(work, "lab.yaml")
			os.Remove(yaml)
			if tt.yaml != "" {
				rwWriteFile(t, yaml, tt.yaml)
			}
			args := append([]string{"write", "-q", "--overwrite", "--schema", "id:long"}, tt.flags...)
			if _, errOut, code := runWith(t, bin, work, tt.env, `{"id":1}`, append(args, "out.data")...); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if got := magic("out.data"); got != tt.want {
				t.Fatalf("file starts with %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("config show names the source", func(t *testing.T) {
		rwWriteFile(t, filepath.Join(work, "lab.yaml"), "write:\n  compression: snappy\n")
		out, errOut, code := runWith(t, bin, work, []string{"LAB_WRITE_FORMAT=avro"}, "", "config", "show")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, want := range []string{"write.compression", "snappy", "config file", "write.format", "environment LAB_WRITE_FORMAT", "read.format"} {
			if !strings.Contains(out, want) {
				t.Errorf("config show lacks %q:\n%s", want, out)
			}
		}
	})
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}
