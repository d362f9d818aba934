package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/filecol"
	"github.com/coltype-lab/lab/formats/specread"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/file"
)

func init() { commands = append(commands, newFileCommand) }

func newFileCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "file",
		Example: `  lab file resolve images.parquet --column img --verify`,
		Short:   "Work with FILE columns (parquet-format 2.14.0 FILE logical type)",
		Args:    usageArgs(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newFileResolveCommand(v))
	return cmd
}

func newFileResolveCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "resolve FILE.parquet --column COL",
		Short: "Resolve every FILE reference of a column to its bytes and report each row",
		Long: `Resolve reads one FILE column of a Parquet file through the registry and
resolves each row's value to its bytes under a resolution policy, streaming
the bytes (nothing is kept) and reporting per row: the row number (from 0),
the status, the bytes resolved and the content type.

Statuses:
  ok        the value resolved; bytes and content type are shown
  null      the value is null
  invalid   the value breaks a FILE spec rule (the rule is shown)
  error     the reference could not be resolved: refused by the policy,
            missing, out of range, or a checksum mismatch (the reason is shown)

Policy: references are confined to --root directories (default: the Parquet
file's directory), relative uris resolve against --base (default: the same
directory), and only the --scheme schemes are allowed (default: file, which
covers local paths). http and https are allowed only when named with --scheme,
and then only for the --host hosts. --verify hashes the bytes while they
stream and fails the row on a checksum mismatch; an ETAG is compared with the
http(s) response's ETag. A checksum --verify cannot use (not <algorithm>:<digest>
in the algorithm's encoding, an unknown algorithm, an ETAG with no ETag to
compare) leaves the row ok and marks its checksum unverifiable, with the
reason: the spec has no checksum rule and readers ignore unknown algorithms.
Without --verify checksums are not looked at. An http(s) row fails, naming
the timeout, when connecting takes longer than --connect-timeout, the
response headers longer than --header-timeout, or any wait for more body
bytes longer than --idle-timeout.

Where the policy comes from: flags, then LAB_* variables (LAB_FILE_RESOLVE_ROOT),
then a configuration file. The settings that widen it (file.resolve.root,
scheme, host, max_size) are taken from a file only when it is named with
--config FILE or trusted with --trust-config: a ./lab.yaml found in the working
directory cannot widen them, and a warning names each one it tries to set.
The timeouts, base, column, verify and json may come from ./lab.yaml.
--show-policy prints the effective policy and where each part came from on
stderr; it is printed without asking whenever a widening part comes from a
LAB_* variable or a configuration file, or was ignored. Standard output is
the same either way.

Exit status: 0 when every non-null row resolves; 1 when any row is invalid or
fails, or FILE.parquet is missing or not a readable Parquet file (as in every
lab command); 2 for usage errors (bad flags, no such column, a column that is
not FILE).`,
		Example: `  lab file resolve spec/golden/file/whole-object-sha256.parquet --column doc --verify
  lab file resolve images.parquet --column image --root /data/images --json | jq '.rows[] | select(.status != "ok")'
  lab file resolve remote.parquet --column doc --scheme https --host media.example.com --base https://media.example.com/set1/`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := resolveOptions{
				path:    args[0],
				column:  v.GetString("file.resolve.column"),
				verify:  v.GetBool("file.resolve.verify"),
				roots:   v.GetStringSlice("file.resolve.root"),
				schemes: v.GetStringSlice("file.resolve.scheme"),
				hosts:   v.GetStringSlice("file.resolve.host"),
				base:    v.GetString("file.resolve.base"),
				maxSize: v.GetInt64("file.resolve.max_size"),
				json:    v.GetBool("file.resolve.json"),

				connectTimeout: v.GetDuration("file.resolve.connect_timeout"),
				headerTimeout:  v.GetDuration("file.resolve.header_timeout"),
				idleTimeout:    v.GetDuration("file.resolve.idle_timeout"),
				showPolicy:     v.GetBool("file.resolve.show_policy"),
				policySource: func(key string) string {
					if f := cmd.Flags().Lookup(resolveFlags[strings.TrimPrefix(key, "file.resolve.")]); f != nil && f.Changed {
						return "flag --" + f.Name
					}
					return settingSource(v, loadedConfig(cmd), key)
				},
			}
			return runFileResolve(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), opts)
		},
	}
	f := cmd.Flags()
	f.String("column", "", "the FILE column to resolve (a top-level name, or a dotted path through structs)")
	f.Bool("verify", false, "verify each value's checksum while its bytes stream")
	f.StringSlice("root", nil, "directory references must stay inside (repeatable; default: the Parquet file's directory)")
	f.StringSlice("scheme", []string{"file"}, "allowed uri scheme: file, http or https (repeatable)")
	f.StringSlice("host", nil, "host[:port] that http and https references may reach (repeatable)")
	f.String("base", "", "base location for relative uris: a directory or an http(s) URL (default: the Parquet file's directory)")
	f.Int64("max-size", 0, "most bytes one value may resolve to (0: 256 MiB)")
	f.Bool("json", false, "print the results as one JSON document")
	f.Duration("connect-timeout", file.DefaultConnectTimeout, "longest wait for a connection to an http(s) host")
	f.Duration("header-timeout", file.DefaultHeaderTimeout, "longest wait for response headers once a request is sent")
	f.Duration("idle-timeout", file.DefaultIdleTimeout, "longest wait for more body bytes")
	f.Bool("show-policy", false, "print the effective resolution policy and where each part came from on stderr")
	for key, flag := range resolveFlags {
		_ = v.BindPFlag("file.resolve."+key, f.Lookup(flag))
	}
	return cmd
}

// resolveFlags maps lab file resolve's setting keys (under file.resolve) to
// their flags.
var resolveFlags = map[string]string{
	"column": "column", "verify": "verify", "root": "root", "scheme": "scheme", "host": "host",
	"base": "base", "max_size": "max-size", "json": "json", "connect_timeout": "connect-timeout",
	"header_timeout": "header-timeout", "idle_timeout": "idle-timeout", "show_policy": "show-policy",
}

type resolveOptions struct {
	path, column          string
	verify, json          bool
	roots, schemes, hosts []string
	base                  string
	maxSize               int64

	connectTimeout, headerTimeout, idleTimeout time.Duration
	// showPolicy prints the policy on stderr; policySource says where a
	// file.resolve key's value came from.
	showPolicy   bool
	policySource func(key string) string
}

// resolveRow is one row's outcome; the JSON names are stable.
type resolveRow struct {
	Row         int64       `json:"row"`
	Status      file.Status `json:"status"`
	Bytes       *int64      `json:"bytes,omitempty"`
	ContentType string      `json:"content_type,omitempty"`
	SHA256      string      `json:"sha256,omitempty"`
	Rule        file.Rule   `json:"rule,omitempty"`
	Reason      string      `json:"reason,omitempty"`
	// Checksum is set on ok rows with a checksum when --verify is given:
	// verified, or unverifiable with ChecksumReason saying why.
	Checksum       file.ChecksumCheck `json:"checksum,omitempty"`
	ChecksumReason string             `json:"checksum_reason,omitempty"`
}

type resolveSummary struct {
	Rows    int64 `json:"rows"`
	OK      int64 `json:"ok"`
	Null    int64 `json:"null"`
	Invalid int64 `json:"invalid"`
	Errors  int64 `json:"errors"`
	Bytes   int64 `json:"bytes"`
	// Unverifiable counts ok rows whose checksum --verify could not use.
	Unverifiable int64 `json:"unverifiable"`
}

func (s *resolveSummary) add(r resolveRow) {
	s.Rows++
	switch r.Status {
	case file.StatusOK:
		s.OK++
		s.Bytes += *r.Bytes
		if r.Checksum == file.ChecksumUnverifiable {
			s.Unverifiable++
		}
	case file.StatusNull:
		s.Null++
	case file.StatusInvalid:
		s.Invalid++
	default:
		s.Errors++
	}
}

func (s resolveSummary) String() string {
	out := fmt.Sprintf("%d rows: %d ok, %d null, %d invalid, %d errors (%d bytes resolved)",
		s.Rows, s.OK, s.Null, s.Invalid, s.Errors, s.Bytes)
	if s.Unverifiable > 0 {
		out += fmt.Sprintf("; %d ok rows have a checksum --verify could not use", s.Unverifiable)
	}
	return out
}

func runFileResolve(ctx context.Context, stdout, stderr io.Writer, o resolveOptions) error {
	if o.column == "" {
		return usageError{errors.New("--column is required: name the FILE column to resolve")}
	}
	abs, err := filepath.Abs(o.path)
	if err != nil {
		return usageError{err}
	}
	in := registry.LocalInput(abs)
	col, err := findFileColumn(in, o.path, o.column)
	if err != nil {
		return err
	}
	if !col.Annotated {
		fmt.Fprintf(stderr, "lab: warning: %s: column %q (field id %d) is FILE-shaped but its footer does not annotate it FILE (no logical type 19, no key/value mirror); resolving it as FILE anyway\n",
			o.path, col.Name, col.ID)
	}
	cfg, err := cliResolverConfig(filepath.Dir(abs), o)
	if err != nil {
		return err
	}
	reportPolicy(stderr, cfg, o)
	resolver, err := file.NewResolver(cfg)
	if err != nil {
		return usageError{err}
	}

	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, in)
	if err != nil {
		return err
	}
	reader, err := b.Project(col.Projection).ReuseContainers().Build()
	if err != nil {
		return fmt.Errorf("%s: %w", o.path, err)
	}
	defer reader.Close()

	out := newResolveOutput(stdout, o, col)
	var sum resolveSummary
	for row := int64(0); ; row++ {
		rec, err := reader.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: column %q: reading row %d: %w", o.path, col.Name, row, err)
		}
		r := resolveOne(ctx, resolver, col, rec, row)
		sum.add(r)
		if err := out.row(r); err != nil {
			return err
		}
	}
	if err := out.finish(sum); err != nil {
		return err
	}
	if failed := sum.Invalid + sum.Errors; failed > 0 {
		return fmt.Errorf("%s: column %q: %d of %d rows did not resolve (%d invalid, %d errors)",
			o.path, col.Name, failed, sum.Rows, sum.Invalid, sum.Errors)
	}
	return nil
}

// findFileColumn checks that in is a Parquet file with a FILE-shaped column
// named name and plans a read of just that column (formats/parquet/filecol).
// A file that cannot be read fails (exit 1), as in every other command; a
// readable file without that FILE column is a usage error: the arguments
// name the wrong column.
func findFileColumn(in registry.InputFile, shown, name string) (*filecol.Column, error) {
	anns, schema, err := specread.ParquetSchema(in, shown, nil)
	if err != nil {
		return nil, err
	}
	col, err := filecol.Lookup(schema, anns, name)
	if ce := (*filecol.ColumnError)(nil); errors.As(err, &ce) {
		return nil, usageError{fmt.Errorf("%s: %w", shown, err)}
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	return col, nil
}

func topLevelNames(s *iceberg.Schema) []string {
	var out []string
	for _, f := range s.Fields() {
		out = append(out, f.Name)
	}
	return out
}

// newCLIResolver turns the flags into a resolver policy; dir is the Parquet
// file's directory, the default root and base.
func newCLIResolver(dir string, o resolveOptions) (*file.Resolver, error) {
	cfg, err := cliResolverConfig(dir, o)
	if err != nil {
		return nil, err
	}
	r, err := file.NewResolver(cfg)
	if err != nil {
		return nil, usageError{err}
	}
	return r, nil
}

// cliResolverConfig is newCLIResolver's policy, before the resolver checks it.
func cliResolverConfig(dir string, o resolveOptions) (file.Config, error) {
	fail := func(err error) (file.Config, error) { return file.Config{}, usageError{err} }
	if o.maxSize < 0 {
		return fail(fmt.Errorf("--max-size %d is negative", o.maxSize))
	}
	for _, t := range []struct {
		flag string
		d    time.Duration
	}{{"--connect-timeout", o.connectTimeout}, {"--header-timeout", o.headerTimeout}, {"--idle-timeout", o.idleTimeout}} {
		if t.d < 0 {
			return fail(fmt.Errorf("%s %s is negative", t.flag, t.d))
		}
	}
	cfg := file.Config{VerifyChecksums: o.verify, MaxSize: o.maxSize, HTTPHosts: o.hosts,
		ConnectTimeout: o.connectTimeout, HeaderTimeout: o.headerTimeout, IdleTimeout: o.idleTimeout}
	web := false
	for _, s := range o.schemes {
		s = strings.ToLower(strings.TrimSpace(s))
		switch s {
		case "file":
		case "http", "https":
			web = true
		default:
			return fail(fmt.Errorf("--scheme %q is not supported (file, http, https)", s))
		}
		cfg.Schemes = append(cfg.Schemes, s)
	}
	if len(cfg.Schemes) == 0 {
		return fail(errors.New("--scheme: at least one scheme is needed"))
	}
	if web && len(o.hosts) == 0 {
		return fail(errors.New("--scheme http or https needs --host for each host references may reach"))
	}
	if len(o.hosts) > 0 && !web {
		return fail(errors.New("--host applies to http and https only; add --scheme https (or http)"))
	}
	roots := o.roots
	if len(roots) == 0 {
		roots = []string{dir}
	}
	for _, root := range roots {
		a, err := filepath.Abs(root)
		if err != nil {
			return fail(fmt.Errorf("--root %q: %w", root, err))
		}
		cfg.Roots = append(cfg.Roots, a)
	}
	cfg.BaseLocation = dir
	if o.base != "" {
		cfg.BaseLocation = o.base
		if !strings.Contains(o.base, "://") {
			a, err := filepath.Abs(o.base)
			if err != nil {
				return fail(fmt.Errorf("--base %q: %w", o.base, err))
			}
			cfg.BaseLocation = a
		}
	}
	return cfg, nil
}

// reportPolicy prints the policy lab file resolve applies and where each
// part came from, on stderr so that stdout (text or JSON) stays the same:
// when asked with --show-policy, and unasked when a widening part came from
// a LAB_* variable or a configuration file, or a file's value was ignored,
// since then the command line alone does not show the policy.
func reportPolicy(w io.Writer, cfg file.Config, o resolveOptions) {
	source := o.policySource
	if source == nil {
		source = func(string) string { return "default" }
	}
	list := func(xs []string) string {
		if len(xs) == 0 {
			return "-"
		}
		return strings.Join(xs, ",")
	}
	rows := []struct {
		key, value string
		widening   bool
		dflt       string // what the default is, when it is not the value itself
	}{
		{"root", list(cfg.Roots), true, "the Parquet file's directory"},
		{"scheme", list(cfg.Schemes), true, ""},
		{"host", list(cfg.HTTPHosts), true, ""},
		{"max_size", fmt.Sprintf("%d bytes", cmp.Or(cfg.MaxSize, file.DefaultMaxSize)), true, ""},
		{"base", cfg.BaseLocation, false, "the Parquet file's directory"},
		{"connect_timeout", cmp.Or(cfg.ConnectTimeout, file.DefaultConnectTimeout).String(), false, ""},
		{"header_timeout", cmp.Or(cfg.HeaderTimeout, file.DefaultHeaderTimeout).String(), false, ""},
		{"idle_timeout", cmp.Or(cfg.IdleTimeout, file.DefaultIdleTimeout).String(), false, ""},
	}
	show := o.showPolicy
	sources := make([]string, len(rows))
	for i, r := range rows {
		src := source("file.resolve." + r.key)
		if r.widening && src != "default" && !strings.HasPrefix(src, "flag ") {
			show = true
		}
		if src == "default" && r.dflt != "" {
			src += " (" + r.dflt + ")"
		}
		sources[i] = src
	}
	if !show {
		return
	}
	fmt.Fprintln(w, "lab: FILE resolution policy:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  KEY\tVALUE\tSOURCE")
	for i, r := range rows {
		fmt.Fprintf(tw, "  file.resolve.%s\t%s\t%s\n", r.key, r.value, sources[i])
	}
	_ = tw.Flush() // stderr: a failed report must not fail the command
}

// resolveOne decodes and resolves one row (types/file: Resolver.Resolve),
// streaming its bytes through a hash; nothing is kept.
func resolveOne(ctx context.Context, res *file.Resolver, col *filecol.Column, rec *data.Record, row int64) resolveRow {
	var r file.Resolution
	if v, err := col.Value(rec); err != nil {
		r = file.Failed(err)
	} else {
		r = res.Resolve(ctx, v)
	}
	out := resolveRow{Row: row, Status: r.Status, ContentType: r.ContentType, SHA256: r.SHA256,
		Rule: r.Rule, Reason: r.Reason, Checksum: r.Checksum, ChecksumReason: r.ChecksumReason}
	if r.Status == file.StatusOK {
		out.Bytes = &r.Bytes
	}
	return out
}

// resolveOutput prints rows as they resolve: a text table, or one JSON
// document streamed row by row so large columns need no buffering.
type resolveOutput struct {
	w     io.Writer
	json  bool
	first bool
	err   error
}

func newResolveOutput(w io.Writer, o resolveOptions, col *filecol.Column) *resolveOutput {
	out := &resolveOutput{w: w, json: o.json, first: true}
	if o.json {
		head, _ := json.Marshal(struct {
			File      string `json:"file"`
			Column    string `json:"column"`
			FieldID   int    `json:"field_id"`
			Annotated bool   `json:"annotated"`
			Verify    bool   `json:"verify"`
		}{o.path, col.Name, col.ID, col.Annotated, o.verify})
		out.printf("%s,\"rows\":[", head[:len(head)-1])
		return out
	}
	out.printf("%s: column %q (field id %d), children %s\n", o.path, col.Name, col.ID, strings.Join(fieldNameList(col.Layout.Fields()), ", "))
	out.printf("%6s  %-7s  %10s  %-24s  %s\n", "ROW", "STATUS", "BYTES", "CONTENT TYPE", "DETAIL")
	return out
}

func fieldNameList(fs []file.Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name()
	}
	return out
}

func (o *resolveOutput) printf(format string, args ...any) {
	if o.err == nil {
		_, o.err = fmt.Fprintf(o.w, format, args...)
	}
}

func (o *resolveOutput) row(r resolveRow) error {
	if o.json {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		sep := ","
		if o.first {
			sep, o.first = "", false
		}
		o.printf("%s\n%s", sep, b)
		return o.err
	}
	bytes, detail := "-", r.Reason
	if r.Bytes != nil {
		bytes = fmt.Sprint(*r.Bytes)
		detail = "sha256:" + r.SHA256
		switch r.Checksum {
		case file.ChecksumVerified:
			detail += " (checksum verified)"
		case file.ChecksumUnverifiable:
			detail += " (checksum unverifiable: " + r.ChecksumReason + ")"
		}
	}
	o.printf("%6d  %-7s  %10s  %-24s  %s\n", r.Row, r.Status, bytes, r.ContentType, detail)
	return o.err
}

func (o *resolveOutput) finish(s resolveSummary) error {
	if o.json {
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		o.printf("\n],\"summary\":%s}\n", b)
		return o.err
	}
	o.printf("%s\n", s)
	return o.err
}
