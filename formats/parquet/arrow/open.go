package arrow

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/registry"
)

// arrowOpenGuarded is the one door through which the lab's arrow-go paths
// open a Parquet file. arrow-go v18.8.0 panics on a logical-type union member
// it does not know and silently misreads an unknown repetition type, so the
// footer is decoded here once, under recover, checked, and handed to arrow-go
// with file.WithMetadata; arrow-go never parses the footer itself.
//
// Extensions of the guard belong here and nowhere else.
//
// The returned reader owns the opened input: closing it closes the file.
func arrowOpenGuarded(in registry.InputFile) (*file.Reader, error) {
	return arrowOpenGuardedKey(in, nil, nil)
}

// arrowOpenGuardedKey is arrowOpenGuarded with the decryption settings of
// ReadOptions. Without a key, a file that needs one (footer magic "PARE",
// or an encrypted file with a plaintext footer) is refused with an error
// wrapping footer.ErrEncrypted that says how to read it.
//
// With a key the footer is encrypted, so the lab's codec cannot decode it
// first: arrow-go parses and decrypts it itself (it also builds the column
// decryptors, which file.WithMetadata would leave out), under the same
// recover, and the parsed footer gets the same arrowCheckFooter checks. The
// footer is AES-GCM authenticated under the file key, so only a holder of
// the key can have written what arrow-go parses; an annotation arrow-go
// does not know (FILE, VECTOR) is not removed on this path and fails the
// open rather than being misread.
func arrowOpenGuardedKey(in registry.InputFile, key, aad []byte) (rdr *file.Reader, err error) {
	if err := arrowCheckKey(key, aad); err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", in.Location, err)
	}
	src, size, err := in.Open()
	if err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parquet file %s: arrow-go panicked opening it: %v", in.Location, p)
		}
		if err != nil {
			rdr = nil
			_ = src.Close()
		}
	}()

	if key != nil {
		props := parquet.NewReaderProperties(nil)
		props.FileDecryptProps = arrowDecryptionProps(key, aad)
		rdr, err = file.NewParquetReader(src, file.WithReadProps(props))
		if err != nil {
			return nil, fmt.Errorf("parquet file %s: decrypt with the given key: %w", in.Location, err)
		}
		if err := arrowCheckFooter(rdr.MetaData(), size, in.Location); err != nil {
			return nil, err
		}
		return rdr, nil
	}
	md, err := arrowReadFooter(src, size, in.Location)
	if err != nil {
		if errors.Is(err, footer.ErrEncrypted) {
			return nil, fmt.Errorf("%w (Parquet modular encryption: read it with the file's key, ReadBuilder.WithFileEncryptionKey, and its AAD prefix, WithAADPrefix)", err)
		}
		return nil, err
	}
	rdr, err = file.NewParquetReader(src, file.WithMetadata(md))
	if err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", in.Location, err)
	}
	return rdr, nil
}

// arrowReadFooter reads the footer through the lab's thrift codec, which
// bounds every declared length by the bytes present, and hands arrow-go a
// sanitized copy: annotations it does not know (FILE, VECTOR, unknown ids)
// removed, unknown repetition types refused. Every failure names the file.
func arrowReadFooter(src io.ReaderAt, size int64, location string) (*metadata.FileMetaData, error) {
	f, err := footer.ReadFooter(src, size)
	if err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", location, err)
	}
	if f.Meta.Encrypted() {
		// Plaintext-footer mode: the footer reads, the columns need a key.
		return nil, fmt.Errorf("parquet file %s: the footer is plaintext but the file is encrypted: %w", location, footer.ErrEncrypted)
	}
	md, err := footer.ArrowFileMetaData(f.Meta, size)
	if err != nil {
		return nil, fmt.Errorf("parquet file %s: %w", location, err)
	}
	if err := arrowCheckFooter(md, size, location); err != nil {
		return nil, err
	}
	return md, nil
}

// arrowCheckFooter refuses what arrow-go would misread rather than reject:
// repetition types outside REQUIRED/OPTIONAL/REPEATED (e.g. VECTOR = 3 of
// parquet-format PR #592), and column chunks that point outside the file,
// which arrow-go would otherwise try to allocate and read.
func arrowCheckFooter(md *metadata.FileMetaData, size int64, location string) error {
	for i, el := range md.FileMetaData.Schema {
		if i == 0 || !el.IsSetRepetitionType() {
			continue
		}
		if rep := int64(el.GetRepetitionType()); rep < 0 || rep > 2 {
			return fmt.Errorf("parquet file %s: schema element %q (position %d) has unknown repetition type %d",
				location, el.GetName(), i, rep)
		}
	}
	leaves := md.Schema.NumColumns()
	for r, rg := range md.FileMetaData.RowGroups {
		if rg == nil {
			return fmt.Errorf("parquet file %s: row group %d is missing", location, r)
		}
		if rg.NumRows < 0 {
			return fmt.Errorf("parquet file %s: row group %d has %d rows", location, r, rg.NumRows)
		}
		if len(rg.Columns) != leaves {
			return fmt.Errorf("parquet file %s: row group %d has %d column chunks, the schema has %d columns",
				location, r, len(rg.Columns), leaves)
		}
		for c, cc := range rg.Columns {
			path := md.Schema.Column(c).Path()
			if cc == nil || cc.MetaData == nil {
				return fmt.Errorf("parquet file %s: row group %d column %s has no metadata", location, r, path)
			}
			m := cc.MetaData
			start := m.DataPageOffset
			if m.IsSetDictionaryPageOffset() && m.GetDictionaryPageOffset() > 0 && m.GetDictionaryPageOffset() < start {
				start = m.GetDictionaryPageOffset()
			}
			n := m.TotalCompressedSize
			if start < 0 || n < 0 || start > size || n > size-start {
				return fmt.Errorf("parquet file %s: row group %d column %s spans [%d, %d+%d), outside the file (%d bytes)",
					location, r, path, start, start, n, size)
			}
			if m.NumValues < 0 {
				return fmt.Errorf("parquet file %s: row group %d column %s has %d values", location, r, path, m.NumValues)
			}
		}
	}
	return nil
}
