// Package parquet holds the lab's Parquet format models for the generic row
// types: "parquet-generic" reads and writes *data.Record, and
// "parquet-position-delete" reads and writes data.PositionDelete. Both
// register in registry.Default from init(), so importing the package (even
// as `_`) is what makes (PARQUET, *data.Record) resolvable.
//
// Writing follows Iceberg Java's TypeToMessageType: every node with an
// Iceberg field id carries it as the Parquet field_id, lists are 3-level
// (`list`/`element`), maps are `key_value`/`key`/`value`, and the schema's
// JSON goes into the footer under `iceberg.schema`. Records are shredded into
// repetition and definition levels here rather than through parquet-go's
// reflection, so a record is validated completely before any of its values
// reach the file.
//
// Reading resolves the projection by field id (or by name through a name
// mapping for files written without ids), reads only the needed column
// chunks, and reassembles records from the levels.
//
// Column types beyond Iceberg's plug in as column bindings, each from its
// own package's init (binding.go): FILE from filecol, VECTOR from
// vectorcol, which writes its own pages (page_binding.go, page_write.go).
// This package imports none of them; a program gets a type by importing
// its package, even blank, and is refused its properties without it.
package parquet
