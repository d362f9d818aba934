package parquet

import "github.com/coltype-lab/lab/data"

// decimalPhysical tells how Iceberg stores decimal(p, s) in Parquet.
func decimalPhysical(precision int) (kind string, size int) {
	switch {
	case precision <= 9:
		return "int32", 4
	case precision <= 18:
		return "int64", 8
	default:
		return "fixed", data.DecimalRequiredBytes(precision)
	}
}
