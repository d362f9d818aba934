package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/annotate/request"
)

// The help documents every registered type from its own registration, so a
// type linked into the lab needs no edit here.
func TestAnnotateHelpListsTheRegisteredTypes(t *testing.T) {
	cmd := newAnnotateCommand(nil)
	types := request.Types()
	var names []string
	for _, rt := range types {
		names = append(names, rt.Name)
		if !strings.Contains(cmd.Long, "\n  "+rt.Syntax+"\n") {
			t.Errorf("the help lacks %s's syntax %q:\n%s", rt.Name, rt.Syntax, cmd.Long)
		}
		for _, line := range strings.Split(rt.Usage, "\n") {
			if !strings.Contains(cmd.Long, "\n      "+line+"\n") {
				t.Errorf("the help lacks %s's usage line %q", rt.Name, line)
			}
		}
	}
	for _, want := range []string{"file", "vector"} {
		if !slices.Contains(names, want) {
			t.Errorf("the lab registers no %q request type (registered: %q)", want, names)
		}
	}
	if usage := cmd.Flags().Lookup("type").Usage; !strings.Contains(usage, "TYPE one of "+strings.Join(names, ", ")) {
		t.Errorf("--type's usage %q does not list %q", usage, names)
	}
}

func TestAnnotateTypeFlag(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "in.parquet"), cliParquet(t))

	out, errOut, code := run(t, bin, work, "annotate", "in.parquet", "out.parquet", "--type", "doc:file", "--type", "emb:vector<float32,4>;id=33")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"  doc  FILE(id=19)\n", "  emb  VECTOR(id=33, element=float32, dim=4, layout=list)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "out.parquet")); err != nil {
		t.Fatal(err)
	}

	// The shorthands keep their messages word for word; --type's name it.
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--type", "emb:bogus"}, 2, `lab: --type "emb:bogus": unknown annotation type "bogus" (registered types: file, vector)` + "\n"},
		{[]string{"--type", "emb"}, 2, `lab: --type "emb": no type after the column: want COLUMN:TYPE (registered types: file, vector)` + "\n"},
		{[]string{"--type", "doc:file;id=19"}, 2, `lab: --type "doc:file;id=19": type "file;id=19": want COLUMN:file (file takes no parameters or settings)` + "\n"},
		{[]string{"--type", "emb:vector<float32,4>;id=5"}, 2,
			`lab: --type "emb:vector<float32,4>;id=5": VECTOR union id 5 is not usable: it must be above 19 (parquet-format's ids 1-19) and at most 32767` + "\n"},
		{[]string{"--file", "doc", "--type", "doc:file"}, 2, "lab: --file doc and --type doc:file annotate the same column\n"},
		{[]string{"--vector", "emb:vector<float32,4>", "--type", "emb:vector<float32,4>;id=33"}, 2,
			"lab: --vector emb:vector<float32,4> and --type emb:vector<float32,4>;id=33 annotate the same column\n"},
		{[]string{"--type", "emb2:vector<float32,2>"}, 1,
			"lab: annotate in.parquet: --type emb2:vector<float32,2>: the element column emb2.list.element is float64, not float32\n"},
		{[]string{"--vector", "emb"}, 2, `lab: --vector "emb": column "emb": no type: want emb:vector<ELEMENT,DIM>` + "\n"},
		{[]string{"--vector", "emb:vector<float32,4>;id=5"}, 2,
			`lab: --vector "emb:vector<float32,4>;id=5": VECTOR union id 5 is not usable: it must be above 19 (parquet-format's ids 1-19) and at most 32767` + "\n"},
		{[]string{"--vector", "emb:dim=4,element=float32"}, 2,
			`lab: --vector "emb:dim=4,element=float32": the COLUMN:dim=N,element=T form is gone: write 'emb:vector<ELEMENT,DIM>[;id=N][;layout=L]'` + "\n"},
		{[]string{"--file", "a..b"}, 2, `lab: --file "a..b": column path "a..b" has an empty name` + "\n"},
		{[]string{"--file", ""}, 2, `lab: --file "": empty column path` + "\n"},
		{[]string{"--file", "a:b"}, 1, `lab: annotate in.parquet: refused: footer edit: --file a:b: annotate: column path a:b not found: no "a:b" under <root>` + "\n"},
		{[]string{"--file", "id"}, 1, "lab: annotate in.parquet: refused: footer edit: --file id: annotate column id: FILE annotates a group, and this is a INT64 leaf\n"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, errOut, code := run(t, bin, work, append([]string{"annotate", "in.parquet", "x.parquet"}, tt.args...)...)
			if code != tt.code || errOut != tt.msg {
				t.Errorf("exit %d, stderr %q; want exit %d, %q", code, errOut, tt.code, tt.msg)
			}
		})
	}
}
