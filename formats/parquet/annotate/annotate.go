// Package annotate adds FILE and VECTOR logical types to an existing Parquet
// file by rewriting only its footer, and proves that it did only that.
//
// The footer codec (formats/parquet/footer) does the rewrite; this package
// is the file-level operation around it: publish through a temporary file,
// check element types the footer cannot see, read the written file back and
// compare every byte before the footer, so a copy that is not what it claims
// never replaces its destination.
//
// Requests can also be read from text (request.Parse: doc:file,
// emb:vector<float32,768>;id=33): each column type registers the parser of
// its own specs (request.Register) from its package, as it registers its
// column binding, so lab annotate learns a type from a blank import.
package annotate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/coltype-lab/lab/formats/parquet/annotate/request"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/inspect"
	"github.com/coltype-lab/lab/internal/publish"
	"github.com/coltype-lab/lab/internal/safeopen"
)

// Request is one annotation to add. It lives in package request, which
// column types import to register how their requests are spelt: this
// package reads files back with formats/parquet/inspect, whose tests import
// those column types.
type Request = request.Request

// Options are the choices AnnotateFile leaves to the caller.
type Options struct {
	Replace               bool // replace out if it exists
	AllowVectorRepetition bool // see footer.AllowVectorRepetition
}

// Result is what was written, as the written file reads back.
type Result struct {
	// Described[i] is Requests[i]'s logical type as inspect reads it back
	// from the written file (its Text), or the kind when there is none.
	Described    []string
	FooterBefore int64 // footer length of in
	FooterAfter  int64 // footer length of out
	FooterOffset int64 // where both footers start: the bytes before it are identical
}

// OutputExistsError is out existing when Options.Replace is false.
// It wraps fs.ErrExist.
type OutputExistsError struct {
	Path string
	// Appeared: out did not exist when the write began, and was created
	// by someone else before the rename.
	Appeared bool
}

func (e *OutputExistsError) Error() string {
	if e.Appeared {
		return e.Path + " appeared while writing"
	}
	return e.Path + " exists"
}

func (e *OutputExistsError) Unwrap() error { return fs.ErrExist }

// copyWriter is where the annotated copy's bytes go: the temporary file.
// Tests put a writer that fails as a full disk does in front of it.
var copyWriter = func(tmp *os.File) io.Writer { return tmp }

// File rewrites in's footer with reqs into out, through a temporary file
// beside out (internal/publish), and verifies the result before publishing
// it: the written file reads back, holds every annotation in both the
// footer and the key/value mirror, and has the same bytes as in before the
// footer. A refusal or failure leaves nothing behind.
func File(in, out string, reqs []Request, opts Options) (_ *Result, err error) {
	if len(reqs) == 0 {
		return nil, errors.New("annotate: nothing to annotate")
	}
	tmp, err := publish.Create(out, opts.Replace)
	if err != nil {
		return nil, outputError(out, err, false)
	}
	defer tmp.Abort() // a no-op once committed

	src, err := safeopen.Open(in) // a FIFO would block os.Open
	if err != nil {
		return nil, fmt.Errorf("annotate: %w", err)
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return nil, fmt.Errorf("annotate: %w", err)
	}
	size := st.Size()
	before, err := inspect.Inspect(src, size, inspect.Options{Name: in})
	if err != nil {
		return nil, fmt.Errorf("annotate: %w", err)
	}
	if err := checkElements(before, reqs); err != nil {
		return nil, fmt.Errorf("annotate %s: %w", in, err)
	}

	var fopts []footer.Option
	if opts.AllowVectorRepetition {
		fopts = append(fopts, footer.AllowVectorRepetition())
	}
	edit := func(m *footer.FileMetaData) error {
		for _, r := range reqs {
			if err := footer.Annotate(m, r.Path, r.Annotation); err != nil {
				return fmt.Errorf("%s: %w", r.Name, err)
			}
		}
		return nil
	}
	sink := &writeTagger{w: copyWriter(tmp.File)}
	if err := footer.RewriteFooter(src, size, sink, edit, fopts...); err != nil {
		if sink.err != nil {
			// Not a refusal: the copy could not be written (a full disk).
			return nil, fmt.Errorf("annotate %s: writing the annotated copy %s failed after %d bytes (it needs about %d bytes free beside the output, the input's size, until it replaces it): %w",
				in, tmp.Name(), sink.n, size, sink.err)
		}
		return nil, fmt.Errorf("annotate %s: refused: %w", in, err)
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		return nil, fmt.Errorf("annotate: %w", err)
	}

	// Verify: the same bytes before the footer, and the annotations there.
	// One decode recognises one VECTOR id, so each id gets its own read.
	tst, err := tmp.Stat()
	if err != nil {
		return nil, fmt.Errorf("annotate: %w", err)
	}
	reports := map[int16]*inspect.Report{}
	for _, r := range reqs {
		id := vectorID(r)
		if reports[id] == nil {
			rep, err := inspect.Inspect(tmp, tst.Size(), inspect.Options{Name: out, VectorID: id})
			if err != nil {
				return nil, fmt.Errorf("annotate: the written file does not read back: %w", err)
			}
			reports[id] = rep
		}
		if !hasAnnotation(reports[id], r) {
			return nil, fmt.Errorf("annotate: %s is not in the written footer", r.Name)
		}
	}
	after := reports[vectorID(reqs[0])]
	if after.FooterOffset != before.FooterOffset {
		return nil, fmt.Errorf("annotate: the written footer starts at offset %d, not %d", after.FooterOffset, before.FooterOffset)
	}
	if at, err := FirstDifferenceAt(src, tmp, before.FooterOffset); err != nil {
		return nil, fmt.Errorf("annotate: compare %s with the written file: %w", in, err)
	} else if at >= 0 {
		return nil, fmt.Errorf("annotate: the written file differs from %s at offset %d, before the footer", in, at)
	}
	// Commit syncs before it renames, and without Replace never replaces
	// an out that appeared while writing.
	if err := tmp.Commit(); err != nil {
		return nil, outputError(out, err, true)
	}

	res := &Result{FooterBefore: before.FooterLength, FooterAfter: after.FooterLength, FooterOffset: after.FooterOffset}
	for _, r := range reqs {
		res.Described = append(res.Described, describe(reports[vectorID(r)], r))
	}
	return res, nil
}

// vectorID is the VECTOR union id the written file is read back with for r.
func vectorID(r Request) int16 {
	if r.Annotation.Kind == footer.KindVector && r.Annotation.ID != 0 {
		return r.Annotation.ID
	}
	return footer.DefaultVectorID
}

// outputError names out in publish's refusals: an existing file without
// Replace (*OutputExistsError), a directory or other node that is not a
// regular file.
func outputError(out string, err error, atCommit bool) error {
	var nr *publish.NotReplaceableError
	switch {
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("annotate: %w", &OutputExistsError{Path: out, Appeared: atCommit})
	case errors.As(err, &nr):
		return fmt.Errorf("annotate: %s %w", out, err)
	}
	return fmt.Errorf("annotate: %w", err)
}

// checkElements checks Element and FLBA against the columns; structural
// problems are left to footer.Annotate, which names them.
func checkElements(rep *inspect.Report, reqs []Request) error {
	for _, r := range reqs {
		if r.FLBA {
			if n := rep.Schema.Find(r.Path); n != nil && (!n.IsLeaf() || n.PhysicalType != "FIXED_LEN_BYTE_ARRAY") {
				return fmt.Errorf("%s: layout=flba needs a FIXED_LEN_BYTE_ARRAY column, %s is %s", r.Name, strings.Join(r.Path, "."), n.ElementName())
			}
			continue
		}
		if r.Element == 0 {
			continue
		}
		n := rep.Schema.Find(r.Path)
		if n == nil || len(n.Children) != 1 || len(n.Children[0].Children) != 1 {
			continue
		}
		if got := n.Children[0].Children[0].ElementName(); got != r.Element.String() {
			return fmt.Errorf("%s: the element column %s is %s, not %s", r.Name,
				strings.Join(n.Children[0].Children[0].Path, "."), got, r.Element)
		}
	}
	return nil
}

func hasAnnotation(rep *inspect.Report, r Request) bool {
	for _, got := range rep.Annotations {
		if slices.Equal(got.Path, r.Path) && got.Kind == string(r.Annotation.Kind) && got.InFooter && got.InKeyValue {
			return true
		}
	}
	return false
}

// describe is the annotation as inspect reads it back.
func describe(rep *inspect.Report, r Request) string {
	if n := rep.Schema.Find(r.Path); n != nil && n.LogicalType != nil {
		return n.LogicalType.Text
	}
	return string(r.Annotation.Kind)
}

// FirstDifferenceAt compares the first n bytes of a and b and returns the
// offset of the first difference, or -1. Short reads are errors, never a
// difference, so a truncated file is told from a changed one.
func FirstDifferenceAt(a, b io.ReaderAt, n int64) (int64, error) {
	const chunk = 1 << 16
	bufA, bufB := make([]byte, chunk), make([]byte, chunk)
	for off := int64(0); off < n; off += chunk {
		m := int(min(chunk, n-off))
		if err := readAtFull(a, bufA[:m], off); err != nil {
			return 0, err
		}
		if err := readAtFull(b, bufB[:m], off); err != nil {
			return 0, err
		}
		if i := firstMismatch(bufA[:m], bufB[:m]); i >= 0 {
			return off + int64(i), nil
		}
	}
	return -1, nil
}

func firstMismatch(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return len(a)
}

func readAtFull(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("read %d bytes at offset %d: %w", len(p), off, err)
}

// writeTagger remembers the first write error of w, so that a failed
// write (ENOSPC) is told from a refused edit.
type writeTagger struct {
	w   io.Writer
	n   int64
	err error
}

func (t *writeTagger) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.n += int64(n)
	if err != nil && t.err == nil {
		t.err = err
	}
	return n, err
}
