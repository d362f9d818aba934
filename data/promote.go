package data

import "github.com/apache/iceberg-go"

// Promotable reports whether a column stored as type file may be read as
// want: the same type, or one of Iceberg's type promotions (spec.md "Schema
// Evolution"): int→long, float→double, decimal(P,S)→decimal(P',S) with
// P' ≥ P. The Parquet reader and the table import check use it.
func Promotable(file, want iceberg.Type) bool {
	if file.Equals(want) {
		return true
	}
	switch f := file.(type) {
	case iceberg.Int32Type:
		_, ok := want.(iceberg.Int64Type)
		return ok
	case iceberg.Float32Type:
		_, ok := want.(iceberg.Float64Type)
		return ok
	case iceberg.DecimalType:
		w, ok := want.(iceberg.DecimalType)
		return ok && w.Scale() == f.Scale() && w.Precision() >= f.Precision()
	}
	return false
}
