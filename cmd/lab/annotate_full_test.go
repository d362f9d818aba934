package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// annotateInput is a Parquet file with a FILE-shaped column doc, of about
// rows x 60 bytes.
func annotateInput(t *testing.T, rows int) []byte {
	t.Helper()
	s := func(v string) *string { return &v }
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[cliRow](&buf)
	for i := range rows {
		r := cliRow{ID: int64(i), Emb: []float32{float32(i), 2, 3, 4}, Emb2: []float64{float64(i), 1}}
		if i%2 == 0 {
			r.Doc = &cliFileRef{URI: s(fmt.Sprintf("s3://bucket/%08d.jpg", i))}
		}
		if _, err := w.Write([]cliRow{r}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
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
	head := p[:f.n]
	done, err := f.w.Write(head)
	f.n -= int64(done)
	if err != nil {
		return done, err
	}
	more, err := f.full.Write(p[done:])
	return done + more, err
}

// TestAnnotateFullDisk makes the annotated copy's writes fail with ENOSPC
// part way, as a full disk does: the error says the write failed (not that
// the file was refused), how far it got and how much room the rewrite
// needs; the exit status is 1; the input is untouched and nothing is left
// beside the output.
func TestAnnotateFullDisk(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full to fail writes with ENOSPC: %v", err)
	}
	defer full.Close()
	dir := t.TempDir()
	data := annotateInput(t, 2000)
	in := writeFile(t, filepath.Join(dir, "in.parquet"), data)
	out := filepath.Join(dir, "out.parquet")
	const room = 4096 // bytes written before the disk is full

	defer func(w func(*os.File) io.Writer) { annotatedCopyWriter = w }(annotatedCopyWriter)
	annotatedCopyWriter = func(tmp *os.File) io.Writer { return &fullAfter{w: tmp, n: room, full: full} }

	root := newRootCommand()
	var stdout, stderr bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	root.SetArgs([]string{"annotate", in, out, "--file", "doc"})
	err = root.Execute()
	if err == nil {
		t.Fatalf("annotate onto a full disk succeeded: %s", stdout.String())
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
	var usage usageError
	if errors.As(err, &usage) {
		t.Errorf("error %q is a usage error (exit 2), want exit 1", msg)
	}
	if got, err := os.ReadFile(in); err != nil || !bytes.Equal(got, data) {
		t.Errorf("the input changed (%v)", err)
	}
	if names := dirEntries(t, dir); !slices.Equal(names, []string{"in.parquet"}) {
		t.Errorf("left beside the output: %v", names)
	}
}
