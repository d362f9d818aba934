package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/formats/parquet/annotate"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/vector"
)

func init() { commands = append(commands, newAnnotateCommand) }

func newAnnotateCommand(_ *viper.Viper) *cobra.Command {
	var files, vectors []string
	var force, allowVectorRepetition bool
	cmd := &cobra.Command{
		Use:   "annotate IN.parquet OUT.parquet --file COLUMN ... --vector 'COLUMN:vector<ELEMENT,DIM>[;key=value...]' ...",
		Short: "Add FILE and VECTOR annotations to an existing Parquet file by rewriting only its footer",
		Long: `Annotate copies IN to OUT with FILE and VECTOR logical types added to the
footer. Every byte before the footer is copied unchanged (and compared after
writing); only the footer and its length change. The annotations are mirrored
in the key/value metadata under "` + footer.MirrorKey + `".

COLUMN is a dotted path from the root (a.b.c).

  --file COLUMN     FILE (union id 19) on a group whose children are a subset
                    of uri, offset, size, content_type, checksum, inline.
  --vector COLUMN:vector<ELEMENT,DIM>[;key=value...]
                    VECTOR on a 3-level list group (group, repeated middle
                    group, one element): DIM elements of ELEMENT (float32,
                    float64, float16 or int8), which the element column's
                    type is checked against. The declaration is spelt as in
                    schemas and write.parquet.vector-columns; settings may
                    follow, each after a ";":
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
		Example: `  lab annotate in.parquet out.parquet --file doc --vector 'emb:vector<float32,768>'
  lab annotate in.parquet out.parquet --vector 'a.emb:vector<float32,4>;id=33' --vector 'b:vector<int8,8>;layout=list' --force`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var anns []annotate.Request
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
					if slices.Equal(a.Path, b.Path) {
						return usageError{fmt.Errorf("%s and %s annotate the same column", b.Name, a.Name)}
					}
				}
			}
			if len(anns) == 0 {
				return usageError{errors.New("nothing to annotate: give --file COLUMN or --vector COLUMN:vector<ELEMENT,DIM>")}
			}
			return annotateFile(cmd.OutOrStdout(), args[0], args[1], anns, force, allowVectorRepetition)
		},
	}
	cmd.Flags().StringArrayVar(&files, "file", nil, "annotate the group COLUMN as FILE (repeatable)")
	cmd.Flags().StringArrayVar(&vectors, "vector", nil, "annotate COLUMN as VECTOR: COLUMN:vector<ELEMENT,DIM>[;id=N][;layout=L] (repeatable)")
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

func parseFileFlag(s string) (annotate.Request, error) {
	path, err := columnPath(s)
	if err != nil {
		return annotate.Request{}, fmt.Errorf("--file %q: %w", s, err)
	}
	return annotate.Request{Name: "--file " + s, Path: path, Annotation: footer.Annotation{Kind: footer.KindFile}}, nil
}

// parseVectorFlag reads --vector COLUMN:vector<ELEMENT,DIM>[;id=N][;layout=L]
// with types/vector's one declaration parser.
func parseVectorFlag(s string) (annotate.Request, error) {
	a := annotate.Request{Name: "--vector " + s, Annotation: footer.Annotation{Kind: footer.KindVector}}
	fail := func(format string, args ...any) (annotate.Request, error) {
		return annotate.Request{}, fmt.Errorf("--vector %q: %s", s, fmt.Sprintf(format, args...))
	}
	if col, params, ok := strings.Cut(s, ":"); ok && strings.Contains(params, "dim=") {
		return fail("the COLUMN:dim=N,element=T form is gone: write '%s:vector<ELEMENT,DIM>[;id=N][;layout=L]'", col)
	}
	d, settings, err := vector.ParseDeclarationSettings(s)
	if err != nil {
		return fail("%v", err)
	}
	if a.Path, err = columnPath(d.Column); err != nil {
		return fail("%v", err)
	}
	a.Annotation.VectorLength = int32(d.Dim) // at most vector.MaxDim
	a.Element = d.Element
	flba := false
	for _, kv := range settings {
		switch k, v := kv.Key, kv.Value; k {
		case "id":
			n, err := strconv.Atoi(v)
			if err != nil {
				return fail("id=%s is not an integer", v)
			}
			id, err := vectorIDFlag(n)
			if err != nil {
				return fail("%v", err)
			}
			a.Annotation.ID = id
		case "layout":
			switch v {
			case "list":
			case "vector-repetition":
				a.Annotation.VectorRepetition = true
			case "flba":
				flba = true
			default:
				return fail("layout=%s: want list, vector-repetition or flba", v)
			}
		default:
			return fail("column %q: unknown setting %q (want id, layout)", d.Column, k)
		}
	}
	if flba {
		// A FIXED_LEN_BYTE_ARRAY cell does not say what its bytes are: the
		// declared element names them, and the leaf must be dim x width long.
		name, _ := a.Element.ParquetElement() // the parser admits only elements that have one
		a.Annotation.Element = name
		a.Element = 0 // Element is checked against list elements; the codec checks the leaf length
		a.FLBA = true
	}
	return a, nil
}

// annotateFile runs annotate.File and prints what it wrote and verified.
func annotateFile(stdout io.Writer, in, out string, reqs []annotate.Request, force, allowVectorRepetition bool) error {
	res, err := annotate.File(in, out, reqs, annotate.Options{Replace: force, AllowVectorRepetition: allowVectorRepetition})
	if oe := (*annotate.OutputExistsError)(nil); errors.As(err, &oe) {
		return fmt.Errorf("annotate: %s; use --force to replace it", oe)
	}
	if err != nil {
		return err
	}
	w := &bytes.Buffer{}
	fmt.Fprintf(w, "annotated %s -> %s\n", in, out)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, r := range reqs {
		fmt.Fprintf(tw, "  %s\t%s\n", strings.Join(r.Path, "."), res.Described[i])
	}
	tw.Flush()
	fmt.Fprintf(w, "footer: %d -> %d bytes at offset %d\n", res.FooterBefore, res.FooterAfter, res.FooterOffset)
	fmt.Fprintf(w, "verified: the %d bytes before the footer are identical to %s (compared)\n", res.FooterOffset, in)
	_, err = stdout.Write(w.Bytes())
	return err
}
