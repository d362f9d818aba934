package peers

// DuckDBVariant runs duckdb_variant.mjs, DuckDB's side of the lab's
// variant benchmark (bench/variant.go): the same script directory and
// packages as DuckDB.
var DuckDBVariant = nodePeer("duckdb", "duckdb_variant.mjs", "@duckdb/node-api")
