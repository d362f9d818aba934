package table

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	itable "github.com/apache/iceberg-go/table"

	"github.com/coltype-lab/lab/data/coltype"
)

// Description is what lab table describe prints; the JSON names are stable.
// Its JSON is encoding/json's of the fields, with Columns spread into one
// key per column type (MarshalJSON).
type Description struct {
	Name          string `json:"name"`
	Location      string `json:"location"`
	FormatVersion int    `json:"format_version"`
	// Schema is the current schema, in Iceberg's JSON.
	Schema *iceberg.Schema `json:"schema"`
	// Columns are the table's columns of registered column types
	// (data/coltype: FILE, VECTOR, ...), by type name, each as the type's
	// property lists it (coltype.PropertyEntry): "img" for FILE,
	// "emb:vector<float32,4>" for VECTOR. In JSON, each type's list is the
	// key NAME_columns (file_columns, vector_columns), in the order of the
	// names.
	Columns map[string][]string `json:"-"`
	// FooterAnnotations says whether data files carry FILE and VECTOR in
	// their footers (write.parquet.footer-annotations).
	FooterAnnotations bool                  `json:"footer_annotations"`
	Partition         iceberg.PartitionSpec `json:"partition_spec"`
	Properties        map[string]string     `json:"properties"`
	CurrentSnapshotID *int64                `json:"current_snapshot_id,omitempty"`
	NextRowID         int64                 `json:"next_row_id,omitempty"`
	Snapshots         []SnapshotInfo        `json:"snapshots"`
}

// SnapshotInfo is one snapshot of Description.
type SnapshotInfo struct {
	ID         int64             `json:"id"`
	ParentID   *int64            `json:"parent_id,omitempty"`
	Sequence   int64             `json:"sequence_number"`
	Time       time.Time         `json:"timestamp"`
	Operation  string            `json:"operation,omitempty"`
	SchemaID   *int              `json:"schema_id,omitempty"`
	FirstRowID *int64            `json:"first_row_id,omitempty"`
	AddedRows  *int64            `json:"added_rows,omitempty"`
	Summary    map[string]string `json:"summary,omitempty"`
}

// Describe is the table's schema, partition spec, properties and snapshots.
func (t *Table) Describe() (*Description, error) {
	spec, err := t.Spec()
	if err != nil {
		return nil, err
	}
	md := t.tbl.Metadata()
	d := &Description{
		Name: t.Name(), Location: t.Location(), FormatVersion: md.Version(),
		Schema: spec.Schema, Columns: columnsByType(spec.Decls),
		FooterAnnotations: t.FooterAnnotations(), Partition: md.PartitionSpec(),
		Properties: maps.Clone(map[string]string(md.Properties())), NextRowID: md.NextRowID(),
	}
	if s := md.CurrentSnapshot(); s != nil {
		id := s.SnapshotID
		d.CurrentSnapshotID = &id
	}
	for _, s := range md.Snapshots() {
		info := SnapshotInfo{ID: s.SnapshotID, ParentID: s.ParentSnapshotID, Sequence: s.SequenceNumber,
			Time: time.UnixMilli(s.TimestampMs).UTC(), SchemaID: s.SchemaID, FirstRowID: s.FirstRowID, AddedRows: s.AddedRows}
		if s.Summary != nil {
			info.Operation = string(s.Summary.Operation)
			info.Summary = maps.Clone(map[string]string(s.Summary.Properties))
		}
		d.Snapshots = append(d.Snapshots, info)
	}
	return d, nil
}

// columnsByType is Description.Columns of decls; nil without any.
func columnsByType(decls []coltype.Decl) map[string][]string {
	var out map[string][]string
	for _, d := range decls {
		if out == nil {
			out = map[string][]string{}
		}
		name := d.Type().Name
		out[name] = append(out[name], coltype.PropertyEntry(d))
	}
	return out
}

// columnsKeySuffix ends the JSON key of a column type's list: file_columns.
const columnsKeySuffix = "_columns"

// descriptionFields is Description without its JSON methods.
type descriptionFields Description

// MarshalJSON writes the fields as encoding/json does, Columns as one key
// per type where the field stands: encoding/json marshals a struct type
// made at run time, Description's fields with Columns replaced by one
// []string field per type, so the keys keep their order and their rules
// (omitempty) whatever types a program registers.
func (d Description) MarshalJSON() ([]byte, error) {
	plain := reflect.ValueOf(descriptionFields(d))
	var fields []reflect.StructField
	var values []reflect.Value
	for i := range plain.NumField() {
		f := plain.Type().Field(i)
		if f.Name != "Columns" {
			fields, values = append(fields, f), append(values, plain.Field(i))
			continue
		}
		for j, name := range slices.Sorted(maps.Keys(d.Columns)) {
			tag := fmt.Sprintf("json:%q", name+columnsKeySuffix+",omitempty")
			fields = append(fields, reflect.StructField{Name: fmt.Sprintf("Columns%d", j), Type: f.Type.Elem(), Tag: reflect.StructTag(tag)})
			values = append(values, reflect.ValueOf(d.Columns[name]))
		}
	}
	out := reflect.New(reflect.StructOf(fields)).Elem()
	for i, v := range values {
		out.Field(i).Set(v)
	}
	return json.Marshal(out.Interface())
}

// UnmarshalJSON reads what MarshalJSON writes: every NAME_columns key is
// the columns of type NAME.
func (d *Description) UnmarshalJSON(b []byte) error {
	var plain descriptionFields
	if err := json.Unmarshal(b, &plain); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	for k, raw := range keys {
		name, ok := strings.CutSuffix(k, columnsKeySuffix)
		if !ok || name == "" {
			continue
		}
		var cols []string
		if err := json.Unmarshal(raw, &cols); err != nil {
			return fmt.Errorf("table description: %s: %w", k, err)
		}
		if plain.Columns == nil {
			plain.Columns = map[string][]string{}
		}
		plain.Columns[name] = cols
	}
	*d = Description(plain)
	return nil
}

// FileInfo is one live data or delete file of a snapshot, with its metrics;
// the JSON names are stable.
type FileInfo struct {
	Path        string          `json:"path"`
	Content     string          `json:"content"`
	Format      string          `json:"format"`
	Records     int64           `json:"record_count"`
	Bytes       int64           `json:"file_size_bytes"`
	SpecID      int32           `json:"spec_id"`
	Partition   map[string]any  `json:"partition,omitempty"`
	FirstRowID  *int64          `json:"first_row_id,omitempty"`
	Sequence    *int64          `json:"sequence_number,omitempty"`
	Columns     []ColumnMetrics `json:"columns,omitempty"`
	SplitOffset []int64         `json:"split_offsets,omitempty"`
}

// ColumnMetrics are one column's metrics in a DataFile; bounds are shown
// in Iceberg's human form.
type ColumnMetrics struct {
	ID     int    `json:"id"`
	Name   string `json:"name"`
	Bytes  *int64 `json:"bytes,omitempty"`
	Values *int64 `json:"values,omitempty"`
	Nulls  *int64 `json:"nulls,omitempty"`
	NaNs   *int64 `json:"nans,omitempty"`
	Lower  string `json:"lower,omitempty"`
	Upper  string `json:"upper,omitempty"`
}

// Files lists the live data and delete files of a snapshot (0: the current
// one), in manifest order.
func (t *Table) Files(ctx context.Context, snapshotID int64) ([]FileInfo, error) {
	snap := t.tbl.CurrentSnapshot()
	if snapshotID != 0 {
		var err error
		if snap, err = t.Snapshot(snapshotID); err != nil {
			return nil, err
		}
	}
	if snap == nil {
		return nil, nil
	}
	fsys, err := t.tbl.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("table %s: file IO: %w", t.Name(), err)
	}
	manifests, err := snap.Manifests(fsys)
	if err != nil {
		return nil, fmt.Errorf("table %s snapshot %d: manifest list: %w", t.Name(), snap.SnapshotID, err)
	}
	schema := t.tbl.Schema()
	if snap.SchemaID != nil {
		if s, ok := t.tbl.Schemas()[*snap.SchemaID]; ok {
			schema = s
		}
	}
	var out []FileInfo
	for _, m := range manifests {
		entries, err := m.FetchEntries(fsys, true)
		if err != nil {
			return nil, fmt.Errorf("table %s snapshot %d: manifest %s: %w", t.Name(), snap.SnapshotID, m.FilePath(), err)
		}
		for _, e := range entries {
			out = append(out, fileInfo(e, schema, t.tbl.Metadata()))
		}
	}
	return out, nil
}

func fileInfo(e iceberg.ManifestEntry, schema *iceberg.Schema, md itable.Metadata) FileInfo {
	df := e.DataFile()
	fi := FileInfo{
		Path: df.FilePath(), Content: ContentName(df), Format: string(df.FileFormat()),
		Records: df.Count(), Bytes: df.FileSizeBytes(), SpecID: df.SpecID(), FirstRowID: df.FirstRowID(),
		SplitOffset: df.SplitOffsets(),
	}
	if seq := e.SequenceNum(); seq >= 0 {
		fi.Sequence = &seq
	}
	if spec := md.PartitionSpecByID(int(df.SpecID())); spec != nil && !spec.IsUnpartitioned() {
		fi.Partition = map[string]any{}
		for _, f := range spec.Fields() {
			fi.Partition[f.Name] = df.Partition()[f.FieldID]
		}
	}
	ids := map[int]bool{}
	for _, m := range []map[int]int64{df.ColumnSizes(), df.ValueCounts(), df.NullValueCounts(), df.NaNValueCounts()} {
		for id := range m {
			ids[id] = true
		}
	}
	for id := range df.LowerBoundValues() {
		ids[id] = true
	}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		c := ColumnMetrics{ID: id}
		c.Name, _ = schema.FindColumnName(id)
		get := func(m map[int]int64) *int64 {
			if v, ok := m[id]; ok {
				return &v
			}
			return nil
		}
		c.Bytes, c.Values, c.Nulls, c.NaNs = get(df.ColumnSizes()), get(df.ValueCounts()), get(df.NullValueCounts()), get(df.NaNValueCounts())
		if f, ok := schema.FindFieldByID(id); ok {
			if p, ok := f.Type.(iceberg.PrimitiveType); ok {
				c.Lower, c.Upper = bound(p, df.LowerBoundValues()[id]), bound(p, df.UpperBoundValues()[id])
			}
		}
		fi.Columns = append(fi.Columns, c)
	}
	return fi
}

// bound shows a serialized bound as its value, or as hex when it does not
// decode.
func bound(t iceberg.PrimitiveType, b []byte) string {
	if b == nil {
		return ""
	}
	lit, err := iceberg.LiteralFromBytes(t, b)
	if err != nil {
		return fmt.Sprintf("0x%x", b)
	}
	return lit.String()
}

// ContentName names what a data or delete file holds: data,
// position-deletes, deletion-vector (a v3 position delete in Puffin) or
// equality-deletes.
func ContentName(df iceberg.DataFile) string {
	switch df.ContentType() {
	case iceberg.EntryContentPosDeletes:
		if df.FileFormat() == iceberg.PuffinFile {
			return "deletion-vector"
		}
		return "position-deletes"
	case iceberg.EntryContentEqDeletes:
		return "equality-deletes"
	}
	return "data"
}
