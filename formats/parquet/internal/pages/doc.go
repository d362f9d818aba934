// Package pages is the lab's one Parquet page stack, below both the record
// reader (formats/parquet, where parquet-go decodes values) and the vector
// page reader (formats/parquet/vectorcol): page headers v1 and v2 read with
// every thrift length bounded (ReadHeader, DecodeHeader), levels in the
// RLE/bit-packed hybrid with fast checks for the runs fixed-length vectors
// make (AppendHybrid, DecodeLevels, RowPatternLevels, ...),
// BYTE_STREAM_SPLIT at memory speed (DecodeBSS, EncodeBSS), every codec
// with bounded decompression (Decompress), page CRCs (CheckCRC), and the
// walk of a column chunk that bounds what parquet-go will allocate before
// it reads (CheckChunk).
//
// Everything here reads untrusted bytes: a declared size, count or length
// is checked against the bytes that hold it before anything is allocated
// for it, and an error names what is wrong; callers add file, column and
// offset.
package pages
