package data

import "fmt"

// MaxSchemaDepth is how deep a schema may nest wherever the lab turns text
// or bytes into one: the compact and JSON forms (data/schemaspec, also the
// Iceberg schema JSON in an Avro header), a Parquet footer's schema
// (formats/parquet/footer, on every Parquet read path) and an Avro file's
// schema (formats/avro). Each counts in its own tree: a top-level column is
// at depth 1, and a struct field, list element, map key or value, Parquet
// group child, or Avro record field, array item or map value is one level
// deeper than what holds it (an Avro union is not a level; a Parquet LIST
// takes two, its group and the repeated group under it).
//
// Why 255: it is the deepest column parquet-go reads or writes (its
// MaxColumnDepth; its levels are bytes), so no deeper Parquet schema could
// be read anyway, and it lets shredded VARIANT columns through: Iceberg
// shreds at most 50 levels, which nested arrays turn into about 151 Parquet
// groups (Apache Doris raised its reader's limit from 100 to 192 for them;
// Arrow C++'s reader refuses more than 100 by default, ClickHouse's Avro
// reader more than 256). Below it the cost of a schema stays small: without
// a limit, iceberg-go's name index and JSON codec, which are quadratic in the
// depth, took 96 s and 2.2 GB for a 9,999-level compact schema and 21 s and
// 1 GB for a 3,000-level Avro one; at 255 levels every command on every
// path finishes in 0.1-0.4 s. Deeply nested values (VARIANT, JSON rows)
// have their own limit (data/jsonrow).
const MaxSchemaDepth = 255

// ErrSchemaTooDeep is wrapped by every error that refuses a schema nested
// deeper than MaxSchemaDepth.
var ErrSchemaTooDeep = fmt.Errorf("schemas nest at most %d levels (data.MaxSchemaDepth)", MaxSchemaDepth)
