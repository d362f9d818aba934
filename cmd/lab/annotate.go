package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/formats/parquet/annotate"
	"github.com/coltype-lab/lab/formats/parquet/annotate/request"
	"github.com/coltype-lab/lab/formats/parquet/filecol"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
)

func init() { commands = append(commands, newAnnotateCommand) }

func newAnnotateCommand(_ *viper.Viper) *cobra.Command {
	var files, vectors, types []string
	var force, allowVectorRepetition bool
	cmd := &cobra.Command{
		Use:   "annotate IN.parquet OUT.parquet --file COLUMN ... --vector 'COLUMN:vector<ELEMENT,DIM>[;key=value...]' ... --type COLUMN:TYPE ...",
		Short: "Add FILE, VECTOR or other registered annotations to an existing Parquet file by rewriting only its footer",
		Long:  annotateLong(),
		Example: `  lab annotate in.parquet out.parquet --file doc --vector 'emb:vector<float32,768>'
  lab annotate in.parquet out.parquet --vector 'a.emb:vector<float32,4>;id=33' --vector 'b:vector<int8,8>;layout=list' --force
  lab annotate in.parquet out.parquet --type doc:file --type 'emb:vector<float32,768>;id=33'`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var anns []annotate.Request
			add := func(flag, value string, parse func(string) (request.Request, error)) error {
				a, err := parse(value)
				if err != nil {
					return usageError{fmt.Errorf("%s %q: %w", flag, value, err)}
				}
				a.Name = flag + " " + value // errors name the flag as the user gave it
				anns = append(anns, a)
				return nil
			}
			for _, f := range files {
				if err := add("--file", f, func(column string) (request.Request, error) {
					return parseRequestAs(filecol.AnnotateTypeName, column+":"+filecol.AnnotateTypeName)
				}); err != nil {
					return err
				}
			}
			for _, v := range vectors {
				// Straight to VECTOR's parser, which also takes the legacy
				// COLUMN:ELEMENT:DIM and explains the retired dim= form.
				if err := add("--vector", v, func(spec string) (request.Request, error) {
					return parseRequestAs(vectorcol.AnnotateTypeName, spec)
				}); err != nil {
					return err
				}
			}
			for _, t := range types {
				if err := add("--type", t, request.Parse); err != nil {
					return err
				}
			}
			for i, a := range anns {
				for _, b := range anns[:i] {
					if slices.Equal(a.Path, b.Path) {
						return usageError{fmt.Errorf("%s and %s annotate the same column", b.Name, a.Name)}
					}
				}
			}
			if len(anns) == 0 {
				return usageError{errors.New("nothing to annotate: give --file COLUMN, --vector COLUMN:vector<ELEMENT,DIM> or --type COLUMN:TYPE")}
			}
			return annotateFile(cmd.OutOrStdout(), args[0], args[1], anns, force, allowVectorRepetition)
		},
	}
	cmd.Flags().StringArrayVar(&files, "file", nil, "annotate the group COLUMN as FILE (repeatable)")
	cmd.Flags().StringArrayVar(&vectors, "vector", nil, "annotate COLUMN as VECTOR: COLUMN:vector<ELEMENT,DIM>[;id=N][;layout=L] (repeatable)")
	cmd.Flags().StringArrayVar(&types, "type", nil, "annotate COLUMN as a registered type: COLUMN:TYPE[...], TYPE one of "+strings.Join(request.Names(), ", ")+" (repeatable)")
	cmd.Flags().BoolVar(&force, "force", false, "replace OUT if it exists")
	cmd.Flags().BoolVar(&allowVectorRepetition, "allow-vector-repetition", false,
		"let layout=vector-repetition change the middle group's repetition (only for data written with VECTOR levels)")
	return cmd
}

// annotateLong is the help, with the registered types' grammar and usage:
// a type linked into the lab documents itself here.
func annotateLong() string {
	var b strings.Builder
	b.WriteString(`Annotate copies IN to OUT with logical types added to the footer: FILE,
VECTOR, or any other registered type. Every byte before the footer is
copied unchanged (and compared after writing); only the footer and its
length change. The annotations are mirrored in the key/value metadata
under "` + footer.MirrorKey + `".

COLUMN is a dotted path from the root (a.b.c).

  --type COLUMN:TYPE  an annotation of a registered type, spelt as below.
  --file COLUMN       shorthand for --type COLUMN:file.
  --vector DECL       shorthand for --type DECL, DECL a vector declaration
                      (COLUMN:vector<ELEMENT,DIM>[;key=value...]).

Types:
`)
	for _, t := range request.Types() {
		fmt.Fprintf(&b, "\n  %s\n", t.Syntax)
		for _, line := range strings.Split(t.Usage, "\n") {
			fmt.Fprintf(&b, "      %s\n", line)
		}
	}
	b.WriteString(`
The flags repeat. OUT must not exist unless --force; the new file is
written beside OUT under a temporary name and renamed, so a refusal or
failure leaves nothing behind. Refused: footers that do not re-encode
byte-identically, encrypted files, edits that change the schema's shape,
and columns of the wrong structure or type.`)
	return b.String()
}

// parseRequestAs parses spec with the request type of a name, for the flags
// that stand for one type.
func parseRequestAs(typeName, spec string) (request.Request, error) {
	t, ok := request.Lookup(typeName)
	if !ok {
		return request.Request{}, fmt.Errorf("no %s annotation type is registered", typeName)
	}
	return t.Parse(spec)
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
