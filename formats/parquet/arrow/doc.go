// Package arrow is the (PARQUET, arrow.RecordBatch) format model: arrow-go's
// Parquet stack behind the registry's builders, the lab's independent second
// implementation (DESIGN.md, "Use the ecosystem's types and libraries"). It
// reads through a sanitized footer (open.go), because arrow-go v18.8.0 panics
// on logical types it does not know; writes with arrow-go and puts the
// declared VECTOR annotations in by the same footer rewrite as the record
// model (labpq.PlanAnnotations); derives its DataFile metrics, bounds
// included, from the written footer (colmetrics.FooterMetrics); and takes
// *arrow.Schema engine projections and schemas and Parquet modular
// encryption (engine.go).
//
// It is a package of its own, imported to register (as formats/parquet is
// for the record model), so that formats/parquet does not depend on arrow-go's
// Parquet reader and writer. It shares its name with arrow-go's arrow package,
// which its files import as usual: a package clause declares no identifier.
// Programs import it blank, to register the model.
package arrow
