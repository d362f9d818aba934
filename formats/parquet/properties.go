package parquet

import (
	"maps"
	"slices"

	"github.com/coltype-lab/lab/registry"
)

// The write properties each Parquet model honours (registry.PropertySet):
// any other key under write.parquet. or write.delete.parquet. is refused,
// naming the key, rather than ignored (write.parquet.bogus=1 used to pass
// silently). Iceberg Java's own keys that the lab does not implement are
// named as such, and a key another model honours says which.

var parquetNamespaces = []string{"write.parquet.", "write.delete.parquet."}

// icebergNotImplemented are Iceberg Java's Parquet keys (TableProperties)
// the lab's writers do not implement.
var icebergNotImplemented = map[string]string{
	"write.parquet.bloom-filter-":         "Iceberg's bloom filter properties are not implemented by the lab",
	"write.parquet.stats-enabled.column.": "Iceberg's per-column statistics switch is not implemented by the lab; write.metadata.metrics.column.* sets the metrics",
	"write.parquet.row-group-check-":      "Iceberg's row-group size check cadence is not implemented by the lab",
	"write.delete.parquet.":               "the lab's Parquet delete writers take the write.parquet.* properties",
}

func withNotes(notes map[string]string) map[string]string {
	out := maps.Clone(icebergNotImplemented)
	maps.Copy(out, notes)
	return out
}

// recordProperties are the *data.Record and position-delete models'.
var recordProperties = registry.PropertySet{
	Model:      RecordModelName,
	Namespaces: parquetNamespaces,
	Known: []string{PropCompressionCodec, PropCompressionLevel, PropRowGroupBytes, PropPageBytes, PropRowGroupRows,
		PropShredVariants, PropVariantInferenceRows, PropFooterAnnotations},
	Elsewhere: withNotes(map[string]string{
		PropPageRowLimit: "the " + ArrowModelName + " model honours it",
		PropDictBytes:    "the " + ArrowModelName + " model honours it",
	}),
}

// ArrowModelName is the (PARQUET, arrow.RecordBatch) model's name
// (formats/parquet/arrow), named here in the notes of the keys only it
// honours.
const ArrowModelName = "parquet-arrow"

// NewPropertySet is the PropertySet of a Parquet model: the write.parquet.
// and write.delete.parquet. namespaces, the keys it honours, and notes for
// the keys it does not (Iceberg Java's unimplemented ones always among them).
func NewPropertySet(model string, known []string, elsewhere map[string]string) registry.PropertySet {
	return registry.PropertySet{Model: model, Namespaces: parquetNamespaces, Known: known, Elsewhere: withNotes(elsewhere)}
}

// WriterPropertyKeys are the keys the *data.Record writer takes, each once:
// its own and every registered column binding's, a PageBinding's settings
// included (lab write completes them).
func WriterPropertyKeys() []string {
	keys := slices.Clone(withBindings(recordProperties).Known)
	for _, b := range ColumnBindings() {
		if pb, ok := b.(PageBinding); ok {
			for _, k := range pb.Properties() {
				if !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
	}
	return keys
}

// withBindings is s knowing the registered bindings' properties too
// (binding.go). They are read when a writer checks its properties, not when
// this package initialises: a binding's package registers from its own init,
// which runs after this package's. The properties of the lab's bindings
// that are not registered (unboundProperties) are refused with a note
// naming the package to import.
func withBindings(s registry.PropertySet) registry.PropertySet {
	known := slices.Clip(s.Known)
	for _, k := range bindingProperties() {
		// A model may name a binding's property itself (the arrow model
		// names VECTOR's): listed once.
		if !slices.Contains(known, k) {
			known = append(known, k)
		}
	}
	s.Known = known
	registered := map[string]bool{}
	for _, b := range ColumnBindings() {
		registered[b.Property()] = true
		if pb, ok := b.(PageBinding); ok {
			for _, k := range pb.Properties() {
				registered[k] = true
			}
		}
	}
	s.Elsewhere = maps.Clone(s.Elsewhere)
	if s.Elsewhere == nil {
		s.Elsewhere = map[string]string{}
	}
	for k, pkg := range unboundProperties {
		if !registered[k] {
			s.Elsewhere[k] = UnboundPropertyNote(pkg)
		}
	}
	return s
}

// withPageBindings is s knowing the other properties of the registered
// PageBindings (their layouts, encodings): the record model's, which
// writes their pages.
func withPageBindings(s registry.PropertySet) registry.PropertySet {
	known := slices.Clip(s.Known)
	for _, b := range pageBindings() {
		for _, k := range b.Properties() {
			if !slices.Contains(known, k) {
				known = append(known, k)
			}
		}
	}
	s.Known = known
	return s
}
