package annotate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/parquet-go/parquet-go"

	_ "github.com/coltype-lab/lab/formats/parquet/filecol" // FILE's placement rule, as lab annotate links it
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/vector"
)

type fileRef struct {
	URI  *string `parquet:"uri,optional"`
	Size *int64  `parquet:"size,optional"`
}

type row struct {
	ID  int64     `parquet:"id"`
	Doc *fileRef  `parquet:"doc,optional"`
	Emb []float32 `parquet:"emb,list"`
}

// input is a Parquet file with a FILE-shaped group doc and a float32 list
// emb, of about rows x 60 bytes.
func input(t *testing.T, rows int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	for i := range rows {
		r := row{ID: int64(i), Emb: []float32{float32(i), 2, 3, 4}}
		if i%2 == 0 {
			uri := fmt.Sprintf("s3://bucket/%08d.jpg", i)
			r.Doc = &fileRef{URI: &uri}
		}
		if _, err := w.Write([]row{r}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeInput(t *testing.T, dir string, rows int) (string, []byte) {
	t.Helper()
	data := input(t, rows)
	in := filepath.Join(dir, "in.parquet")
	if err := os.WriteFile(in, data, 0o640); err != nil {
		t.Fatal(err)
	}
	return in, data
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

var (
	fileDoc = Request{Name: "--file doc", Path: []string{"doc"}, Annotation: footer.Annotation{Kind: footer.KindFile}}
	vecEmb  = Request{Name: "--vector emb:dim=4", Path: []string{"emb"}, Annotation: footer.Annotation{Kind: footer.KindVector, VectorLength: 4}}
)

func TestFile(t *testing.T) {
	dir := t.TempDir()
	in, data := writeInput(t, dir, 10)
	out := filepath.Join(dir, "out.parquet")
	f32 := vecEmb
	f32.Element = vector.Float32
	res, err := File(in, out, []Request{fileDoc, f32}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if res.FooterOffset <= 0 || !bytes.Equal(got[:res.FooterOffset], data[:res.FooterOffset]) {
		t.Errorf("the %d bytes before the footer differ from the input", res.FooterOffset)
	}
	if int64(len(data)) != res.FooterOffset+res.FooterBefore+8 || int64(len(got)) != res.FooterOffset+res.FooterAfter+8 {
		t.Errorf("footer lengths %d -> %d at %d do not add up to the sizes %d -> %d", res.FooterBefore, res.FooterAfter, res.FooterOffset, len(data), len(got))
	}
	if res.FooterAfter <= res.FooterBefore {
		t.Errorf("the footer did not grow: %d -> %d", res.FooterBefore, res.FooterAfter)
	}
	if want := []string{"FILE(id=19)", "VECTOR(id=20, element=float32, dim=4, layout=list)"}; !slices.Equal(res.Described, want) {
		t.Errorf("Described = %q, want %q", res.Described, want)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("out mode %v (%v), want the input's 0640", st.Mode().Perm(), err)
	}
	if names := entries(t, dir); !slices.Equal(names, []string{"in.parquet", "out.parquet"}) {
		t.Errorf("directory holds %v", names)
	}
}

// TestFileRefusals: each refusal names the request and what is wrong, and
// leaves nothing beside the output.
func TestFileRefusals(t *testing.T) {
	i8 := vecEmb
	i8.Element = vector.Int8
	flba := vecEmb
	flba.Name = "--vector emb:dim=4,layout=flba"
	flba.FLBA = true
	flbaID := Request{Name: "--vector id:dim=2,layout=flba", Path: []string{"id"}, FLBA: true, Annotation: footer.Annotation{Kind: footer.KindVector, VectorLength: 2}}
	notFile := Request{Name: "--file emb", Path: []string{"emb"}, Annotation: footer.Annotation{Kind: footer.KindFile}}
	for _, tc := range []struct {
		name string
		reqs []Request
		want []string
	}{
		{"element", []Request{i8}, []string{"annotate ", "in.parquet: --vector emb:dim=4: the element column emb.list.element is float32, not int8"}},
		{"flba on a list", []Request{flba}, []string{"--vector emb:dim=4,layout=flba: layout=flba needs a FIXED_LEN_BYTE_ARRAY column, emb is "}},
		{"flba on int64", []Request{flbaID}, []string{"layout=flba needs a FIXED_LEN_BYTE_ARRAY column, id is INT64 INT(64, signed)"}},
		{"not a FILE group", []Request{notFile}, []string{"in.parquet: refused: footer edit: --file emb: annotate column emb: FILE group child \"list\" is not one of uri"}},
		{"none", nil, []string{"annotate: nothing to annotate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in, _ := writeInput(t, dir, 4)
			_, err := File(in, filepath.Join(dir, "out.parquet"), tc.reqs, Options{})
			if err == nil {
				t.Fatal("annotated")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if names := entries(t, dir); !slices.Equal(names, []string{"in.parquet"}) {
				t.Errorf("left behind: %v", names)
			}
		})
	}
}

func TestFileOutputExists(t *testing.T) {
	dir := t.TempDir()
	in, _ := writeInput(t, dir, 4)
	out := filepath.Join(dir, "out.parquet")
	if err := os.WriteFile(out, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := File(in, out, []Request{fileDoc}, Options{})
	var oe *OutputExistsError
	if !errors.As(err, &oe) || oe.Path != out || oe.Appeared || !errors.Is(err, fs.ErrExist) {
		t.Fatalf("err = %v, want an *OutputExistsError for %s wrapping fs.ErrExist", err, out)
	}
	if want := "annotate: " + out + " exists"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
	if got, _ := os.ReadFile(out); string(got) != "keep" {
		t.Errorf("out was replaced: %q", got)
	}
	if _, err := File(in, out, []Request{fileDoc}, Options{Replace: true}); err != nil {
		t.Fatalf("Replace: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = File(in, filepath.Join(dir, "d"), []Request{fileDoc}, Options{Replace: true})
	if err == nil || !strings.HasPrefix(err.Error(), "annotate: "+filepath.Join(dir, "d")+" ") || errors.As(err, &oe) {
		t.Errorf("onto a directory: err = %v, want one naming it", err)
	}
}

// fullAfter passes the first n bytes to w and writes the rest to /dev/full,
// so that they fail as on a full disk: with ENOSPC, from the kernel.
type fullAfter struct {
	w    io.Writer
	n    int64
	full *os.File
}

func (f *fullAfter) Write(p []byte) (int, error) {
	if f.n >= int64(len(p)) {
		f.n -= int64(len(p))
		return f.w.Write(p)
	}
	done, err := f.w.Write(p[:f.n])
	f.n -= int64(done)
	if err != nil {
		return done, err
	}
	more, err := f.full.Write(p[done:])
	return done + more, err
}

// TestFileFullDisk makes the annotated copy's writes fail with ENOSPC part
// way, as a full disk does: the error says the write failed (not that the
// file was refused), how far it got and how much room the rewrite needs;
// the input is untouched and nothing is left beside the output.
func TestFileFullDisk(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full to fail writes with ENOSPC: %v", err)
	}
	defer full.Close()
	dir := t.TempDir()
	in, data := writeInput(t, dir, 2000)
	out := filepath.Join(dir, "out.parquet")
	const room = 4096 // bytes written before the disk is full

	defer func(w func(*os.File) io.Writer) { copyWriter = w }(copyWriter)
	copyWriter = func(tmp *os.File) io.Writer { return &fullAfter{w: tmp, n: room, full: full} }

	_, err = File(in, out, []Request{fileDoc}, Options{})
	if err == nil {
		t.Fatal("annotate onto a full disk succeeded")
	}
	msg := err.Error()
	for _, want := range []string{
		"annotate " + in + ": writing the annotated copy " + dir + string(filepath.Separator) + ".out.parquet.",
		fmt.Sprintf("failed after %d bytes", room),
		fmt.Sprintf("it needs about %d bytes free beside the output, the input's size", len(data)),
		"no space left on device",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "refused") {
		t.Errorf("error %q calls a full disk a refusal", msg)
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("error %q does not wrap ENOSPC", msg)
	}
	if got, err := os.ReadFile(in); err != nil || !bytes.Equal(got, data) {
		t.Errorf("the input changed (%v)", err)
	}
	if names := entries(t, dir); !slices.Equal(names, []string{"in.parquet"}) {
		t.Errorf("left beside the output: %v", names)
	}
}

type shortReader struct{ b []byte }

func (r shortReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(r.b)) {
		return 0, io.EOF
	}
	n := copy(p, r.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func TestFirstDifferenceAt(t *testing.T) {
	big := bytes.Repeat([]byte{7}, 3<<16+5)
	changed := slices.Clone(big)
	changed[2<<16+3] = 8
	for _, tc := range []struct {
		name    string
		a, b    []byte
		n       int64
		want    int64
		wantErr string
	}{
		{"equal", big, big, int64(len(big)), -1, ""},
		{"none compared", []byte("a"), []byte("b"), 0, -1, ""},
		{"first byte", []byte("abc"), []byte("xbc"), 3, 0, ""},
		{"in a later chunk", big, changed, int64(len(big)), 2<<16 + 3, ""},
		{"past n", big, changed, 2<<16 + 3, -1, ""},
		{"b short", []byte("abcd"), []byte("ab"), 4, 0, "read 4 bytes at offset 0: unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FirstDifferenceAt(shortReader{tc.a}, shortReader{tc.b}, tc.n)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("= %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}
