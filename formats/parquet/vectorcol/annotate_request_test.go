package vectorcol

import (
	"reflect"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/annotate/request"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/vector"
)

// The texts are lab annotate --vector's after its `--vector "SPEC": `.
func TestParseAnnotateRequest(t *testing.T) {
	vec := func(spec string, path []string, dim int32, e vector.ElementType) request.Request {
		return request.Request{Name: spec, Path: path, Element: e, Annotation: footer.Annotation{Kind: footer.KindVector, VectorLength: dim}}
	}
	withID := vec("emb:vector<float32,4>;id=33", []string{"emb"}, 4, vector.Float32)
	withID.Annotation.ID = 33
	repeated := vec("emb:vector<float16,8>;layout=vector-repetition;id=32767", []string{"emb"}, 8, vector.Float16)
	repeated.Annotation.VectorRepetition, repeated.Annotation.ID = true, 32767
	spaced := vec(" a.emb : vector<int8,2> ; id = 20 ; layout = list ", []string{"a", "emb"}, 2, vector.Int8)
	spaced.Annotation.ID = 20
	flba := request.Request{Name: "vec:vector<float32,4>;layout=flba", Path: []string{"vec"}, FLBA: true,
		Annotation: footer.Annotation{Kind: footer.KindVector, VectorLength: 4, Element: "FLOAT"}}

	for _, tt := range []struct {
		spec    string
		want    request.Request
		wantErr string
		legacy  bool // no type name for request.Parse to pick the parser by
	}{
		{spec: "emb:vector<float32,768>", want: vec("emb:vector<float32,768>", []string{"emb"}, 768, vector.Float32)},
		{spec: "a.b.emb:vector<float64,3>", want: vec("a.b.emb:vector<float64,3>", []string{"a", "b", "emb"}, 3, vector.Float64)},
		{spec: "emb:float32:4", want: vec("emb:float32:4", []string{"emb"}, 4, vector.Float32), legacy: true},
		{spec: withID.Name, want: withID},
		{spec: repeated.Name, want: repeated},
		{spec: spaced.Name, want: spaced},
		{spec: flba.Name, want: flba},

		{spec: "emb", wantErr: `column "emb": no type: want emb:vector<ELEMENT,DIM>`},
		{spec: ":vector<float32,4>", wantErr: `":vector<float32,4>" has no column name: want COLUMN:vector<ELEMENT,DIM>`},
		{spec: "emb:", wantErr: `column "emb": no type: want vector<ELEMENT,DIM>`},
		{spec: "emb:vector<float32,-1>", wantErr: `column "emb": dimension "-1" is not a positive integer`},
		{spec: "emb:dim=4,element=float32", wantErr: "the COLUMN:dim=N,element=T form is gone: write 'emb:vector<ELEMENT,DIM>[;id=N][;layout=L]'"},
		{spec: "emb:vector<float32,4>;size=3", wantErr: `column "emb": unknown setting "size" (want id, layout)`},
		{spec: "emb:vector<float32,4>;id=33;id=34", wantErr: `column "emb": setting id given twice`},
		{spec: "emb:vector<float32,4>;nokv", wantErr: `column "emb": setting "nokv" is not key=value`},
		{spec: "emb:vector<float32,4>;id=x", wantErr: "id=x is not an integer"},
		{spec: "emb:vector<float32,4>;id=5", wantErr: "VECTOR union id 5 is not usable: it must be above 19 (parquet-format's ids 1-19) and at most 32767"},
		{spec: "emb:vector<float32,4>;id=19", wantErr: "VECTOR union id 19 is not usable: it must be above 19 (parquet-format's ids 1-19) and at most 32767"},
		{spec: "emb:vector<float32,4>;id=32768", wantErr: "VECTOR union id 32768 is not usable: it must be above 19 (parquet-format's ids 1-19) and at most 32767"},
		{spec: "emb:vector<float32,4>;layout=bogus", wantErr: "layout=bogus: want list, vector-repetition or flba"},
		{spec: "emb:vector<float8,4>", wantErr: `column "emb": vector: unknown element type "float8" (want one of float32, float64, float16, int8, bfloat16)`},
		{spec: "emb:vector<bfloat16,4>", wantErr: `column "emb": element type bfloat16 has no Parquet representation (no physical or logical type holds it), so readers could not tell it from float16`},
		{spec: "a..b:vector<float32,4>", wantErr: `column path "a..b" has an empty name`},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			// Straight to the parser, as --vector does, then through the
			// registry, as --type does.
			rt, ok := request.Lookup(AnnotateTypeName)
			if !ok {
				t.Fatalf("%s is not registered", AnnotateTypeName)
			}
			got, err := rt.Parse(tt.spec)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			if viaRegistry, err := request.Parse(tt.spec); !tt.legacy && (err != nil || !reflect.DeepEqual(viaRegistry, tt.want)) {
				t.Errorf("request.Parse: %+v, %v", viaRegistry, err)
			}
		})
	}
}

func TestCheckVectorID(t *testing.T) {
	for id, ok := range map[int]bool{-1: false, 0: false, 1: false, 19: false, 20: true, 33: true, 32767: true, 32768: false} {
		got, err := CheckVectorID(id)
		if ok != (err == nil) || ok && int(got) != id {
			t.Errorf("CheckVectorID(%d) = %d, %v", id, got, err)
		}
	}
}
