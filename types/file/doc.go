// Package file implements the Parquet FILE logical type (parquet-format
// 2.14.0, LogicalType union member 19) as the lab uses it: the value, its
// Iceberg schema (and the mirror of the proposed Iceberg v4 `file` type),
// validation, checksums, and resolution of a value to its bytes under a
// safety policy.
//
// The rules and the sentences they come from are in spec/FILE.md. In short:
//
//   - A FILE value is a group of optional children uri, offset, size,
//     content_type, checksum and inline. A child is "set" when it is present,
//     non-null and, for strings, non-empty.
//   - It resolves to the inline bytes, the whole object at uri, [0, size) of
//     it, or [offset, offset+size) of it. Anything else is invalid, and so
//     are locator fields beside inline that are no locator on their own.
//   - Validate reports spec violations as *Violation values with a Rule; a
//     Resolver turns a valid value into a stream of bytes, confined to the
//     roots, schemes and hosts it is configured with. A checksum it cannot
//     use is unverifiable (Stream.Unverifiable), never a violation.
//
// The FILE annotation itself lives in the Parquet footer, which this package
// does not touch: formats/parquet/footer writes it, checking the group with
// CheckChildren, the check ParseStruct applies on read, through the placement
// rule formats/parquet/filecol registers with the footer.
package file
