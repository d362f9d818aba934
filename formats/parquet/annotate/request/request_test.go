package request

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/footer"
)

// Registered once per test binary: a second registration panics, and
// go test -count=N runs the tests again in the same process.
func init() {
	for _, name := range []string{"test_zeta", "test_alpha", "test_mid"} {
		Register(Type{Name: name, Syntax: "COLUMN:" + name, Parse: parsePlainTestType(name)})
	}
	// A parser that leaves Name to Parse, and one that fails.
	Register(Type{Name: "test_unnamed", Parse: func(spec string) (Request, error) {
		return Request{Path: []string{"x"}, Annotation: footer.Annotation{Kind: "TEST"}}, nil
	}})
	Register(Type{Name: "test_refuses", Parse: func(spec string) (Request, error) {
		return Request{}, errors.New("refused by its parser")
	}})
}

func parsePlainTestType(name string) func(string) (Request, error) {
	return func(spec string) (Request, error) {
		path, err := ParsePlain(spec, name)
		if err != nil {
			return Request{}, err
		}
		return Request{Name: spec, Path: path, Annotation: footer.Annotation{Kind: footer.Kind(strings.ToUpper(name))}}, nil
	}
}

func TestRegisterRefuses(t *testing.T) {
	parse := func(string) (Request, error) { return Request{}, nil }
	for _, tt := range []struct {
		name string
		t    Type
		want string
	}{
		{"empty name", Type{Parse: parse}, "request: Register: empty name"},
		{"upper case", Type{Name: "Vector", Parse: parse}, `name "Vector" is not a lower-case identifier`},
		{"a name specs cannot pick", Type{Name: "vec<tor", Parse: parse}, `name "vec<tor" is not a lower-case identifier`},
		{"a space", Type{Name: "test alpha", Parse: parse}, `name "test alpha" is not a lower-case identifier`},
		{"no Parse", Type{Name: "test_no_parse"}, "test_no_parse has no Parse"},
		{"duplicate", Type{Name: "test_alpha", Parse: parse}, "test_alpha is already registered"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if got := fmt.Sprint(recover()); !strings.Contains(got, tt.want) {
					t.Errorf("panic %q, want one with %q", got, tt.want)
				}
			}()
			Register(tt.t)
		})
	}
	if _, ok := Lookup("test_no_parse"); ok {
		t.Error("a refused type was registered")
	}
	if got, _ := Lookup("test_alpha"); got.Syntax != "COLUMN:test_alpha" {
		t.Errorf("the duplicate replaced the first registration: %+v", got)
	}
}

func TestTypesAreSortedByName(t *testing.T) {
	// Map order changes from call to call: one sorted answer proves little.
	for range 20 {
		var names []string
		for _, rt := range Types() {
			names = append(names, rt.Name)
		}
		if !slices.IsSorted(names) {
			t.Fatalf("Types() = %q, not sorted by name", names)
		}
		for _, want := range []string{"test_alpha", "test_mid", "test_zeta"} {
			if !slices.Contains(names, want) {
				t.Fatalf("Types() = %q, lacks %s", names, want)
			}
		}
	}
}

func TestParse(t *testing.T) {
	var names []string
	for _, rt := range Types() {
		names = append(names, rt.Name)
	}
	registered := "(registered types: " + strings.Join(names, ", ") + ")"
	for _, tt := range []struct {
		spec    string
		want    Request
		wantErr string
	}{
		{spec: "a.b:test_mid", want: Request{Name: "a.b:test_mid", Path: []string{"a", "b"}, Annotation: footer.Annotation{Kind: "TEST_MID"}}},
		{spec: "a: test_zeta ", want: Request{Name: "a: test_zeta ", Path: []string{"a"}, Annotation: footer.Annotation{Kind: "TEST_ZETA"}}},
		{spec: "x:test_unnamed<1>;k=v", want: Request{Name: "x:test_unnamed<1>;k=v", Path: []string{"x"}, Annotation: footer.Annotation{Kind: "TEST"}}},
		{spec: "a:test_mid;k=v", wantErr: `type "test_mid;k=v": want COLUMN:test_mid (test_mid takes no parameters or settings)`},
		{spec: "a..b:test_mid", wantErr: `column path "a..b" has an empty name`},
		{spec: ":test_mid", wantErr: "empty column path"},
		{spec: "x:test_refuses", wantErr: "refused by its parser"},
		{spec: "x:nope", wantErr: `unknown annotation type "nope" ` + registered},
		{spec: "x:Test_mid", wantErr: `unknown annotation type "Test_mid" ` + registered},
		{spec: "x", wantErr: "no type after the column: want COLUMN:TYPE " + registered},
		{spec: "x:", wantErr: "no type after the column: want COLUMN:TYPE " + registered},
		{spec: "x:<1>", wantErr: "no type after the column: want COLUMN:TYPE " + registered},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := Parse(tt.spec)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.want.Name || !slices.Equal(got.Path, tt.want.Path) || got.Annotation.Kind != tt.want.Annotation.Kind {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSpecTypeName(t *testing.T) {
	for spec, want := range map[string]string{
		"doc:file":                         "file",
		"doc:file;x=1":                     "file",
		"emb:vector<float32,4>;id=33":      "vector",
		" emb : vector <float32,4> ; id=1": "vector",
		"emb:float32:4":                    "float32",
		"a.b.c:toy":                        "toy",
		"emb":                              "",
		"emb:":                             "",
		"emb: ;x":                          "",
	} {
		if got := specTypeName(spec); got != want {
			t.Errorf("specTypeName(%q) = %q, want %q", spec, got, want)
		}
	}
}

func TestParsePlain(t *testing.T) {
	for _, tt := range []struct {
		spec    string
		want    []string
		wantErr string
	}{
		{spec: "doc:file", want: []string{"doc"}},
		{spec: "a.b:file", want: []string{"a", "b"}},
		{spec: "a:b:file", want: []string{"a:b"}}, // lab annotate --file a:b
		{spec: " doc:file ", want: []string{" doc"}},
		{spec: "doc", wantErr: "no type after the column: want COLUMN:file"},
		{spec: "doc:files", wantErr: `type "files": want COLUMN:file (file takes no parameters or settings)`},
		{spec: "doc:file<1>", wantErr: `type "file<1>": want COLUMN:file (file takes no parameters or settings)`},
		{spec: "a..b:file", wantErr: `column path "a..b" has an empty name`},
		{spec: "a.:file", wantErr: `column path "a." has an empty name`},
		{spec: ":file", wantErr: "empty column path"},
	} {
		got, err := ParsePlain(tt.spec, "file")
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ParsePlain(%q): error %v, want %q", tt.spec, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParsePlain(%q) = %q, %v; want %q", tt.spec, got, err, tt.want)
		}
	}
}
