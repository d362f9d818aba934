package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data/coltype"
)

// cliToyProperty declares the columns of a column type registered only in
// this test binary (the lab binary does not link it), the way
// internal/toytype registers UNIT_INTERVAL with data/coltype.
const cliToyProperty = "write.parquet.cli-toy-columns"

func init() {
	coltype.RegisterPrimitive(coltype.Primitive{Name: "cli_toy", Property: cliToyProperty, Annotation: "CLI_TOY",
		Iceberg: iceberg.PrimitiveTypes.Float64})
}

// runInProcess runs the lab's command tree in this process, so that it
// sees the test's registrations.
func runInProcess(t *testing.T, args ...string) string {
	t.Helper()
	root := newRootCommand()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		t.Fatalf("lab %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// lab table create and describe show a registered column type, in the
// schema or declared by its property alone, as they show FILE and VECTOR:
// nothing in the CLI names the type.
func TestTableDescribeRegisteredColumnType(t *testing.T) {
	catalog := "warehouse=" + filepath.Join(t.TempDir(), "warehouse")
	runInProcess(t, "table", "create", "lab.toy", "--catalog", catalog, "--schema", "id:long!,score:cli_toy,emb:vector<float32,3>,img:file<uri,size>")
	runInProcess(t, "table", "create", "lab.toy_by_property", "--catalog", catalog, "--schema", "id:long!,score:double",
		"--property", cliToyProperty+"=score")
	for _, tc := range []struct {
		table string
		lines []string // lines of the text output, spaces squeezed
		json  map[string][]string
	}{
		{"lab.toy", []string{
			"2 score optional cli_toy: double",
			"3 emb optional vector<float32,3>: fixed[12]",
			"4 img optional file: struct<5: uri: optional string, 6: size: optional long>",
		}, map[string][]string{"cli_toy_columns": {"score"}, "file_columns": {"img"}, "vector_columns": {"emb:vector<float32,3>"}}},
		{"lab.toy_by_property", []string{"2 score optional cli_toy: double"}, map[string][]string{"cli_toy_columns": {"score"}}},
	} {
		t.Run(tc.table, func(t *testing.T) {
			text := runInProcess(t, "table", "describe", tc.table, "--catalog", catalog)
			var got []string
			for _, l := range strings.Split(text, "\n") {
				got = append(got, strings.Join(strings.Fields(l), " "))
			}
			for _, want := range tc.lines {
				if !slices.Contains(got, want) {
					t.Errorf("describe has no line %q:\n%s", want, text)
				}
			}
			var d map[string]json.RawMessage
			if err := json.Unmarshal([]byte(runInProcess(t, "table", "describe", tc.table, "--catalog", catalog, "--json")), &d); err != nil {
				t.Fatal(err)
			}
			for k := range d {
				if !strings.HasSuffix(k, "_columns") {
					continue
				}
				var cols []string
				if err := json.Unmarshal(d[k], &cols); err != nil {
					t.Fatal(err)
				}
				if want, ok := tc.json[k]; !ok || !slices.Equal(cols, want) {
					t.Errorf("describe --json: %s is %v, want %v", k, cols, tc.json[k])
				}
			}
			for k := range tc.json {
				if _, ok := d[k]; !ok {
					t.Errorf("describe --json has no %s", k)
				}
			}
		})
	}
}
