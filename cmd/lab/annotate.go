package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/inspect"
	"github.com/coltype-lab/lab/internal/publish"
	"github.com/coltype-lab/lab/internal/safeopen"
	"github.com/coltype-lab/lab/types/vector"
)

func init() { commands = append(commands, newAnnotateCommand) }

// annotation is one --file or --vector request.
type annotation struct {
	flag    string // as given, for messages
	path    []string
	ann     footer.Annotation
	element vector.ElementType // 0: not checked
	flba    bool               // layout=flba: the column must be a FIXED_LEN_BYTE_ARRAY leaf
}

func newAnnotateCommand(_ *viper.Viper) *cobra.Command {
	var files, vectors []string
	var force, allowVectorRepetition bool
	cmd := &cobra.Command{
		Use:   "annotate IN.parquet OUT.parquet --file COLUMN ... --vector COLUMN:dim=N[,key=value...] ...",
		Short: "Add FILE and VECTOR annotations to an existing Parquet file by rewriting only its footer",
		Long: `Annotate copies IN to OUT with FILE and VECTOR logical types added to the
footer. Every byte before the footer is copied unchanged (and compared after
writing); only the footer and its length change. The annotations are mirrored
in the key/value metadata under "` + footer.MirrorKey + `".

COLUMN is a dotted path from the root (a.b.c).

  --file COLUMN     FILE (union id 19) on a group whose children are a subset
                    of uri, offset, size, content_type, checksum, inline.
  --vector COLUMN:key=value,...
                    VECTOR on a 3-level list group (group, repeated middle
                    group, one element). Keys:
                      dim=N        vector length (required)
                      element=T    float32, float64, float16 or int8: check
                                   that the element column has that type
                      id=N         the VECTOR union id (default 20; not 1-19)
                      layout=L     list (default: the middle group stays
                                   REPEATED, every reader still reads a list)
                                   or vector-repetition (PR #592: the middle
                                   group becomes VECTOR with vector_length;
                                   needs --allow-vector-repetition, and is only
                                   right for data written with VECTOR levels).
                                   flba (VECTOR on a FIXED_LEN_BYTE_ARRAY leaf)
                                   is not supported by the footer codec.

Both flags repeat. OUT must not exist unless --force; the new file is written
beside OUT under a temporary name and renamed, so a refusal or failure leaves
nothing behind. Refused: footers that do not re-encode byte-identically,
encrypted files, edits that change the schema's shape, and columns of the
wrong structure or type.`,
		Example: `  lab annotate in.parquet out.parquet --file doc --vector emb:dim=768,element=float32
  lab annotate in.parquet out.parquet --vector a.emb:dim=4,id=33 --vector b:dim=8 --force`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var anns []annotation
			for _, f := range files {
				a, err := parseFileFlag(f)
				if err != nil {
					return usageError{err}
				}
				anns = append(anns, a)
			}
			for _, v := range vectors {
				a, err := parseVectorFlag(v)
				if err != nil {
					return usageError{err}
				}
				anns = append(anns, a)
			}
			for i, a := range anns {
				for _, b := range anns[:i] {
					if slices.Equal(a.path, b.path) {
						return usageError{fmt.Errorf("%s and %s annotate the same column", b.flag, a.flag)}
					}
				}
			}
			if len(anns) == 0 {
				return usageError{errors.New("nothing to annotate: give --file COLUMN or --vector COLUMN:dim=N")}
			}
			return annotateFile(cmd.OutOrStdout(), args[0], args[1], anns, force, allowVectorRepetition)
		},
	}
	cmd.Flags().StringArrayVar(&files, "file", nil, "annotate the group COLUMN as FILE (repeatable)")
	cmd.Flags().StringArrayVar(&vectors, "vector", nil, "annotate COLUMN as VECTOR: COLUMN:dim=N[,element=T][,id=N][,layout=L] (repeatable)")
	cmd.Flags().BoolVar(&force, "force", false, "replace OUT if it exists")
	cmd.Flags().BoolVar(&allowVectorRepetition, "allow-vector-repetition", false,
		"let layout=vector-repetition change the middle group's repetition (only for data written with VECTOR levels)")
	return cmd
}

func columnPath(s string) ([]string, error) {
	if s == "" {
		return nil, errors.New("empty column path")
	}
	path := strings.Split(s, ".")
	if slices.Contains(path, "") {
		return nil, fmt.Errorf("column path %q has an empty name", s)
	}
	return path, nil
}

func parseFileFlag(s string) (annotation, error) {
	path, err := columnPath(s)
	if err != nil {
		return annotation{}, fmt.Errorf("--file %q: %w", s, err)
	}
	return annotation{flag: "--file " + s, path: path, ann: footer.Annotation{Kind: footer.KindFile}}, nil
}

func parseVectorFlag(s string) (annotation, error) {
	col, params, _ := strings.Cut(s, ":")
	a := annotation{flag: "--vector " + s, ann: footer.Annotation{Kind: footer.KindVector}}
	fail := func(format string, args ...any) (annotation, error) {
		return annotation{}, fmt.Errorf("--vector %q: %s", s, fmt.Sprintf(format, args...))
	}
	var err error
	if a.path, err = columnPath(col); err != nil {
		return fail("%v", err)
	}
	seen := map[string]bool{}
	flba := false
	for kv := range strings.SplitSeq(params, ",") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fail("parameter %q is not key=value", kv)
		}
		if seen[k] {
			return fail("parameter %s given twice", k)
		}
		seen[k] = true
		switch k {
		case "dim":
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil || n <= 0 {
				return fail("dim=%s is not a positive integer", v)
			}
			a.ann.VectorLength = int32(n)
		case "element":
			t, err := vector.ParseElementType(v)
			if err != nil {
				return fail("%v", err)
			}
			a.element = t
		case "id":
			n, err := strconv.Atoi(v)
			if err != nil {
				return fail("id=%s is not an integer", v)
			}
			id, err := vectorIDFlag(n)
			if err != nil {
				return fail("%v", err)
			}
			a.ann.ID = id
		case "layout":
			switch v {
			case "list":
			case "vector-repetition":
				a.ann.VectorRepetition = true
			case "flba":
				flba = true
			default:
				return fail("layout=%s: want list, vector-repetition or flba", v)
			}
		default:
			return fail("unknown parameter %q (want dim, element, id, layout)", k)
		}
	}
	if a.ann.VectorLength == 0 {
		return fail("dim=N is required (the vector length)")
	}
	if flba {
		// A FIXED_LEN_BYTE_ARRAY cell does not say what its bytes are: the
		// element type must be given, and the leaf must be dim x width long.
		if a.element == 0 {
			return fail("layout=flba needs element=float32|float64|float16|int8")
		}
		name, ok := a.element.ParquetElement()
		if !ok {
			return fail("element=%s has no Parquet type; a FIXED_LEN_BYTE_ARRAY vector cannot hold it", a.element)
		}
		a.ann.Element = name
		a.element = 0 // checkElements looks at list elements; the codec checks the leaf length
		a.flba = true
	}
	return a, nil
}

// annotateFile rewrites in's footer with anns into out, through a temporary
// file beside out (internal/publish), and verifies the result before
// publishing it.
func annotateFile(stdout io.Writer, in, out string, anns []annotation, force, allowVectorRepetition bool) (err error) {
	tmp, err := publish.Create(out, force)
	if err != nil {
		return annotateOutputError(out, err)
	}
	defer tmp.Abort() // a no-op once committed

	src, err := safeopen.Open(in) // a FIFO would block os.Open
	if err != nil {
		return fmt.Errorf("annotate: %w", err)
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return fmt.Errorf("annotate: %w", err)
	}
	size := st.Size()
	before, err := inspect.Inspect(src, size, inspect.Options{Name: in})
	if err != nil {
		return fmt.Errorf("annotate: %w", err)
	}
	if err := checkElements(before, anns); err != nil {
		return fmt.Errorf("annotate %s: %w", in, err)
	}

	var opts []footer.Option
	if allowVectorRepetition {
		opts = append(opts, footer.AllowVectorRepetition())
	}
	edit := func(m *footer.FileMetaData) error {
		for _, a := range anns {
			if err := footer.Annotate(m, a.path, a.ann); err != nil {
				return fmt.Errorf("%s: %w", a.flag, err)
			}
		}
		return nil
	}
	sink := &writeTagger{w: annotatedCopyWriter(tmp.File)}
	if err := footer.RewriteFooter(src, size, sink, edit, opts...); err != nil {
		if sink.err != nil {
			// Not a refusal: the copy could not be written (a full disk).
			return fmt.Errorf("annotate %s: writing the annotated copy %s failed after %d bytes (it needs about %d bytes free beside the output, the input's size, until it replaces it): %w",
				in, tmp.Name(), sink.n, size, sink.err)
		}
		return fmt.Errorf("annotate %s: refused: %w", in, err)
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		return fmt.Errorf("annotate: %w", err)
	}

	// Verify: the same bytes before the footer, and the annotations there.
	// One decode recognises one VECTOR id, so each id gets its own read.
	tst, err := tmp.Stat()
	if err != nil {
		return fmt.Errorf("annotate: %w", err)
	}
	reports := map[int16]*inspect.Report{}
	idOf := func(a annotation) int16 {
		if a.ann.Kind == footer.KindVector && a.ann.ID != 0 {
			return a.ann.ID
		}
		return footer.DefaultVectorID
	}
	for _, a := range anns {
		id := idOf(a)
		if reports[id] == nil {
			r, err := inspect.Inspect(tmp, tst.Size(), inspect.Options{Name: out, VectorID: id})
			if err != nil {
				return fmt.Errorf("annotate: the written file does not read back: %w", err)
			}
			reports[id] = r
		}
		if !hasAnnotation(reports[id], a) {
			return fmt.Errorf("annotate: %s is not in the written footer", a.flag)
		}
	}
	after := reports[idOf(anns[0])]
	if after.FooterOffset != before.FooterOffset {
		return fmt.Errorf("annotate: the written footer starts at offset %d, not %d", after.FooterOffset, before.FooterOffset)
	}
	if at, err := firstDifferenceAt(src, tmp, before.FooterOffset); err != nil {
		return fmt.Errorf("annotate: compare %s with the written file: %w", in, err)
	} else if at >= 0 {
		return fmt.Errorf("annotate: the written file differs from %s at offset %d, before the footer", in, at)
	}
	// Commit syncs before it renames, and without --force never replaces
	// an OUT that appeared while writing.
	if err := tmp.Commit(); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("annotate: %s appeared while writing; use --force to replace it", out)
		}
		return annotateOutputError(out, err)
	}

	w := &bytes.Buffer{}
	fmt.Fprintf(w, "annotated %s -> %s\n", in, out)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, a := range anns {
		fmt.Fprintf(tw, "  %s\t%s\n", strings.Join(a.path, "."), describeAnnotation(reports[idOf(a)], a))
	}
	tw.Flush()
	fmt.Fprintf(w, "footer: %d -> %d bytes at offset %d\n", before.FooterLength, after.FooterLength, after.FooterOffset)
	fmt.Fprintf(w, "verified: the %d bytes before the footer are identical to %s (compared)\n", before.FooterOffset, in)
	_, err = stdout.Write(w.Bytes())
	return err
}

// annotateOutputError names OUT in publish's refusals: an existing file
// without --force, a directory or other node that is not a regular file.
func annotateOutputError(out string, err error) error {
	var nr *publish.NotReplaceableError
	switch {
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("annotate: %s exists; use --force to replace it", out)
	case errors.As(err, &nr):
		return fmt.Errorf("annotate: %s %w", out, err)
	}
	return fmt.Errorf("annotate: %w", err)
}

// checkElements checks element= against the element column of each VECTOR
// request; structural problems are left to footer.Annotate, which names them.
func checkElements(rep *inspect.Report, anns []annotation) error {
	for _, a := range anns {
		if a.flba {
			if n := rep.Schema.Find(a.path); n != nil && (!n.IsLeaf() || n.PhysicalType != "FIXED_LEN_BYTE_ARRAY") {
				return fmt.Errorf("%s: layout=flba needs a FIXED_LEN_BYTE_ARRAY column, %s is %s", a.flag, strings.Join(a.path, "."), n.ElementName())
			}
			continue
		}
		if a.element == 0 {
			continue
		}
		n := rep.Schema.Find(a.path)
		if n == nil || len(n.Children) != 1 || len(n.Children[0].Children) != 1 {
			continue
		}
		if got := n.Children[0].Children[0].ElementName(); got != a.element.String() {
			return fmt.Errorf("%s: the element column %s is %s, not %s", a.flag,
				strings.Join(n.Children[0].Children[0].Path, "."), got, a.element)
		}
	}
	return nil
}

func hasAnnotation(rep *inspect.Report, a annotation) bool {
	for _, got := range rep.Annotations {
		if slices.Equal(got.Path, a.path) && got.Kind == string(a.ann.Kind) && got.InFooter && got.InKeyValue {
			return true
		}
	}
	return false
}

// describeAnnotation is the annotation as inspect reads it back.
func describeAnnotation(rep *inspect.Report, a annotation) string {
	if n := rep.Schema.Find(a.path); n != nil && n.LogicalType != nil {
		return n.LogicalType.Text
	}
	return string(a.ann.Kind)
}

// firstDifferenceAt compares the first n bytes of a and b and returns the
// offset of the first difference, or -1.
func firstDifferenceAt(a, b io.ReaderAt, n int64) (int64, error) {
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

// annotatedCopyWriter is where the annotated copy's bytes go: the temporary
// file. Tests put a writer that fails as a full disk does in front of it.
var annotatedCopyWriter = func(tmp *os.File) io.Writer { return tmp }

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
