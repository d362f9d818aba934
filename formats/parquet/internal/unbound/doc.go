// Package unbound holds only tests: its test binary links formats/parquet
// without any column binding's package (vectorcol, filecol), to show that
// the format then refuses the bindings' properties, naming the property and
// the package to import, instead of writing their columns unannotated, and
// that the footer codec, without filecol's placement rule, refuses FILE
// naming filecol (DESIGN.md, "Layout": a column type is one package plus a
// blank import).
package unbound
