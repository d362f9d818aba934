package table

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	itable "github.com/apache/iceberg-go/table"

	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/data/schemaspec"
)

// Table is an Iceberg table of a Catalog.
type Table struct {
	cat   *Catalog
	tbl   *itable.Table
	ident itable.Identifier
}

// Name is the table's identifier, dotted.
func (t *Table) Name() string { return identString(t.ident) }

// Identifier is the table's identifier.
func (t *Table) Identifier() itable.Identifier { return slices.Clone(t.ident) }

// Iceberg is the iceberg-go table as last loaded or committed.
func (t *Table) Iceberg() *itable.Table { return t.tbl }

// Location is the table's base location.
func (t *Table) Location() string { return t.tbl.Location() }

// Refresh reloads the table's metadata from the catalog.
func (t *Table) Refresh(ctx context.Context) error {
	if err := t.tbl.Refresh(ctx); err != nil {
		return fmt.Errorf("table %s: refresh: %w", t.Name(), err)
	}
	return nil
}

// Spec is the table's current schema with its columns of registered column
// types (FILE, VECTOR, ...: data/coltype), declared by the table properties
// that are those types' writer properties.
func (t *Table) Spec() (*schemaspec.Spec, error) {
	return t.specOf(t.tbl.Schema())
}

// specOf declares the table's lab types on schema (the current one or a
// snapshot's); declarations of columns the schema lacks are dropped, since
// an older schema may predate a column.
func (t *Table) specOf(schema *iceberg.Schema) (*schemaspec.Spec, error) {
	spec := &schemaspec.Spec{Schema: schema}
	if err := spec.Declare(t.declarations(schema)); err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Name(), err)
	}
	return spec, nil
}

// declarations are the table's declarations of every registered column
// type, its property's entries restricted to the top-level columns of
// schema. An entry is COLUMN:SPELLING, or the bare column name for a type
// its field declares (FromField).
func (t *Table) declarations(schema *iceberg.Schema) map[string]string {
	props := t.tbl.Properties()
	top := func(name string) bool {
		return slices.ContainsFunc(schema.Fields(), func(f iceberg.NestedField) bool { return f.Name == name })
	}
	out := map[string]string{}
	for _, ct := range coltype.Types() {
		var kept []string
		for _, e := range coltype.SplitList(props[ct.Property]) { // commas inside <> are a declaration's
			name := e
			if ct.FromField == nil {
				name, _, _ = strings.Cut(e, ":")
			}
			if top(strings.TrimSpace(name)) {
				kept = append(kept, e)
			}
		}
		out[ct.Property] = strings.Join(kept, ",")
	}
	return out
}

// FooterAnnotations reports whether the table writes FILE and VECTOR into
// its data files' footers (PropFooterAnnotations).
func (t *Table) FooterAnnotations() bool {
	on, _ := strconv.ParseBool(strings.TrimSpace(t.tbl.Properties()[PropFooterAnnotations]))
	return on
}

// FormatVersion is the table's format version.
func (t *Table) FormatVersion() int { return t.tbl.Metadata().Version() }

// writerProperties are the data writer's properties for this table: the
// table's write.parquet.* and write.metadata.metrics.* properties (a key the
// Parquet model does not honour fails the write, naming it, as with lab
// write), the declarations, and footer annotations off unless the table
// opts in.
func (t *Table) writerProperties(spec *schemaspec.Spec) map[string]string {
	props := map[string]string{}
	for k, v := range t.tbl.Properties() {
		if strings.HasPrefix(k, "write.parquet.") || strings.HasPrefix(k, "write.metadata.metrics.") {
			props[k] = v
		}
	}
	maps.Copy(props, spec.Properties())
	props[PropFooterAnnotations] = strconv.FormatBool(t.FooterAnnotations())
	return props
}

// Snapshot finds a snapshot by id, naming the table when it has none such.
func (t *Table) Snapshot(id int64) (*itable.Snapshot, error) {
	s := t.tbl.SnapshotByID(id)
	if s == nil {
		ids := make([]string, 0, len(t.tbl.Metadata().Snapshots()))
		for _, s := range t.tbl.Metadata().Snapshots() {
			ids = append(ids, strconv.FormatInt(s.SnapshotID, 10))
		}
		known := "it has no snapshots"
		if len(ids) > 0 {
			known = "its snapshots are " + strings.Join(ids, ", ")
		}
		return nil, fmt.Errorf("table %s has no snapshot %d (%s)", t.Name(), id, known)
	}
	return s, nil
}
