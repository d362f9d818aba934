package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/internal/testenv"
)

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// jsonKeyCase is one --json command line and where its output's keys are
// not the lab's own: data holds the paths of objects keyed by data (type
// names, case ids, property names), whose values are checked under the
// segment "*"; foreign holds the paths of documents in another spec's form
// (Iceberg's schema and partition spec JSON, kebab-case), not checked.
type jsonKeyCase struct {
	args          []string
	data, foreign []string
	needs         func() error // nil, or why the command cannot run here
	noObjects     bool         // prints only a JSON array of strings
	inTree        bool         // runs in the source tree (lab report)
}

// TestJSONKeysSnakeCase runs every command that has --json on small inputs
// and checks that every key it prints, at any depth, is snake_case; the
// command tree is walked so that a new --json command without a case fails.
func TestJSONKeysSnakeCase(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	golden, err := filepath.Abs("../../spec/golden")
	if err != nil {
		t.Fatal(err)
	}
	rows := `{"id":1,"emb":[0.1,0.2,0.3],"doc":{"a":1,"b":"x"},"img":{"uri":"a.png"}}` + "\n" +
		`{"id":2,"emb":[0.3,0.2,0.1],"doc":{"a":2,"b":"y"},"img":null}` + "\n"
	for name, body := range map[string]string{"rows.jsonl": rows, "a.png": "png"} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const schema = "id:long!,emb:vector<float32,3>,doc:variant,img:file"
	peersReady := func() error {
		for _, p := range []peers.Peer{peers.DuckDB, peers.LanceDB, peers.FAISS} {
			if err := p.Available(); err != nil {
				return err
			}
		}
		return nil
	}
	icebergSchema := []string{".schema", ".partition_spec"}
	cases := []jsonKeyCase{ // in order: write makes the file the others read
		{args: []string{"write", "--schema", schema, "--input", "rows.jsonl", "out.parquet", "--json"}},
		{args: []string{"inspect", "out.parquet", "--json"}},
		{args: []string{"pages", "out.parquet", "--json"}},
		{args: []string{"config", "show", "--json"}},
		{args: []string{"file", "resolve", "out.parquet", "--column", "img", "--json"}},
		{args: []string{"vector", "search", "out.parquet", "--query", "[0.1,0.2,0.3]", "--k", "2", "--json"}},
		{args: []string{"vector", "take", "out.parquet", "--rows", "0,1", "--json"}},
		{args: []string{"variant", "analyze", "rows.jsonl", "--column", "doc", "--json"}, data: []string{".report.paths[].types"}},
		{args: []string{"variant", "analyze", "out.parquet", "--column", "doc", "--json"}, data: []string{".report.paths[].types"}},
		{args: []string{"spec", "golden", "--dir", "golden", "--json"}},
		{args: []string{"spec", "golden", "--dir", "golden", "--check", "--json"}},
		{args: []string{"compat", "--golden", golden, "--parquet-testing", "", "--readers", "parquet-go", "--json"},
			data: []string{".cells", ".cells.*"}},
		{args: []string{"compat", "--tables", "--readers", "iceberg-go scan", "--json"},
			data: []string{".about", ".cells", ".cells.*", ".column_order", ".columns", ".columns.*", ".columns.*.*"}},
		{args: []string{"table", "create", "lab.docs", "--schema", schema, "--json"}, foreign: icebergSchema, data: []string{".properties"}},
		{args: []string{"table", "append", "lab.docs", "--input", "rows.jsonl", "--json"}},
		{args: []string{"table", "describe", "lab.docs", "--json"}, foreign: icebergSchema,
			data: []string{".properties", ".snapshots[].summary"}},
		{args: []string{"table", "files", "lab.docs", "--json"}},
		{args: []string{"table", "list", "lab", "--json"}, noObjects: true},
		{args: []string{"table", "search", "lab.docs", "--column", "emb", "--query", "[0.1,0.2,0.3]", "--k", "1", "--json"}},
		{args: []string{"table", "delete", "lab.docs", "--filter", "id = 1", "--json"}},
		{args: []string{"bench", "vectors", "--quick", "--layouts", "flba", "--encodings", "plain", "--codecs", "none", "--runs", "1", "--peer-files=false", "--json"}},
		{args: []string{"bench", "peers", "--quick", "--queries", "2", "--k", "2", "--json"}, data: []string{".versions"}, needs: peersReady},
		{args: []string{"report", "--quick", "--out", filepath.Join(work, "nb"), "--json", "registry-tour"}, inTree: true},
	}

	covered := map[string]bool{}
	for _, tc := range cases {
		covered[jsonCommandPath(t, tc.args)] = true
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			if tc.needs != nil {
				if err := tc.needs(); err != nil {
					testenv.MissingPeer(t, err.Error())
				}
			}
			dir := work
			if tc.inTree {
				dir = "." // cmd/lab
			}
			out, errOut, code := runWith(t, bin, dir, []string{"PARQUET_TEST_DATA="}, "", tc.args...)
			if code != 0 {
				t.Fatalf("lab %s: exit %d: %s", strings.Join(tc.args, " "), code, errOut)
			}
			var bad []string
			checked := 0
			dec := json.NewDecoder(strings.NewReader(out))
			for {
				var doc any
				if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatalf("stdout is not JSON: %v\n%s", err, out)
				}
				walkJSONKeys(doc, "", tc, func(path, key string) {
					checked++
					if !snakeKey.MatchString(key) {
						bad = append(bad, path)
					}
				})
			}
			if tc.noObjects {
				var names []string
				if err := json.Unmarshal([]byte(out), &names); err != nil || len(names) == 0 {
					t.Fatalf("want a JSON array of names (%v):\n%s", err, out)
				}
			} else if checked == 0 {
				t.Fatalf("no keys checked in:\n%s", out)
			}
			if len(bad) > 0 {
				sort.Strings(bad)
				t.Errorf("%d keys are not snake_case: %s", len(bad), strings.Join(slices.Compact(bad), ", "))
			}
		})
	}

	// Every command with a --json flag has a case above.
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.LocalFlags().Lookup("json") != nil && !covered[c.CommandPath()] {
			t.Errorf("%s has --json but no case in this test", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCommand())
}

// jsonCommandPath is the command path of args ("lab table create").
func jsonCommandPath(t *testing.T, args []string) string {
	t.Helper()
	cmd, _, err := newRootCommand().Find(args)
	if err != nil {
		t.Fatal(err)
	}
	return cmd.CommandPath()
}

// walkJSONKeys calls check for every key of the lab's own objects in v.
func walkJSONKeys(v any, path string, tc jsonKeyCase, check func(path, key string)) {
	switch x := v.(type) {
	case map[string]any:
		if slices.Contains(tc.foreign, path) {
			return
		}
		dataKeyed := slices.Contains(tc.data, path)
		for k, e := range x {
			seg := k
			if dataKeyed {
				seg = "*"
			} else {
				check(path+"."+k, k)
			}
			walkJSONKeys(e, path+"."+seg, tc, check)
		}
	case []any:
		for _, e := range x {
			walkJSONKeys(e, path+"[]", tc, check)
		}
	}
}

func TestSnakeCase(t *testing.T) {
	for name, want := range map[string]string{
		"Rows": "rows", "NonNull": "non_null", "N": "n", "WriteMBps": "write_mbps", "DecodeGBps": "decode_gbps",
		"GBps": "gbps", "PeakMB": "peak_mb", "QuarterPeakMB": "quarter_peak_mb", "BatchQPS": "batch_qps",
		"LanceDBBuildMS": "lance_db_build_ms", "DuckDBReadsFLBAAs": "duck_db_reads_flba_as", "Float32Count": "float32_count",
		"Top10Hits": "top10_hits", "already_snake": "already_snake",
	} {
		if got := snakeCase(name); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", name, got, want)
		}
	}
}

type snakeInner struct{ MedianMS float64 }

type snakeOuter struct {
	snakeInner                // flattened, as encoding/json does
	TotalMS    float64        `json:",omitempty"`
	Tagged     string         `json:"kept-as-tagged"`
	Skipped    string         `json:"-"`
	Types      map[string]int // data keys stay
	Items      []snakeInner
	Nil        *snakeInner
	Raw        json.RawMessage
	hidden     int
}

func TestSnakeKeys(t *testing.T) {
	v := snakeOuter{snakeInner: snakeInner{1.5}, Tagged: "t", Skipped: "s", Types: map[string]int{"Int8": 2},
		Items: []snakeInner{{2}}, Raw: json.RawMessage(`{"KeepMe":1}`), hidden: 3}
	got, err := json.Marshal(snakeKeys(v))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"median_ms":1.5,"kept-as-tagged":"t","types":{"Int8":2},"items":[{"median_ms":2}],"nil":null,"raw":{"KeepMe":1}}`
	if !bytes.Equal(got, []byte(want)) {
		t.Errorf("snakeKeys:\n got %s\nwant %s", got, want)
	}
}
