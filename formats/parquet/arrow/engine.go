package arrow

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/coltype-lab/lab/registry"
)

// This file holds the two groups of settings the parquet-arrow model takes
// that the lab's other models refuse: the engine schema (write) and engine
// projection (read), and Parquet modular encryption.
//
// Engine schema and engine projection. Iceberg Java types both by the
// model's schema type S; this model's S is *arrow.Schema, and any other
// value is refused. Java lets the engine schema carry "representation
// details that Iceberg considers equivalent" (its example: an engine's
// tinyint for an Iceberg int). Here the engine schema has the fields of
// the Iceberg schema's arrow form, top level, same names and order; a
// top-level primitive may use one of the arrow types arrowEngineTypes lists
// for the Iceberg type's arrow type, and everything else must be the type
// table.SchemaToArrowSchema gives (up to field metadata and nullability, as
// arrowMatchSchema compares). On write, batches must have the engine schema
// and are cast to the Iceberg types before they are written; on read, the
// projected columns are cast to the engine types, an overflowing value
// (a long that does not fit an int8) failing the read. An engine projection
// needs an Iceberg projection (Project), which it represents.
//
// Encryption. Parquet modular encryption as Iceberg Java's Parquet writer
// configures it (Parquet.WriteBuilder.build, apache/iceberg 7f879b1136):
// AES_GCM_V1, every column and the footer encrypted with the one file key
// (uniform encryption, footer magic "PARE"), the AAD prefix not stored in
// the file (withoutAADPrefixStorage), so a reader must supply it. An AAD
// prefix without a key fails with Java's "AAD prefix set with null
// encryption key".

// arrowEngineTypes lists, for the arrow type of an Iceberg primitive, the
// other arrow types an engine schema may use for it.
var arrowEngineTypes = map[arrow.Type][]arrow.Type{
	arrow.INT32:   {arrow.INT8, arrow.INT16, arrow.UINT8, arrow.UINT16},
	arrow.INT64:   {arrow.INT8, arrow.INT16, arrow.INT32, arrow.UINT8, arrow.UINT16, arrow.UINT32},
	arrow.FLOAT64: {arrow.FLOAT32},
	arrow.STRING:  {arrow.LARGE_STRING},
	arrow.BINARY:  {arrow.LARGE_BINARY},
}

// arrowEnginePlan checks an engine schema or projection (what names which)
// against want, the arrow form of the Iceberg schema or projection, and
// returns per top-level field the engine type to convert to or from, nil
// where the types agree.
func arrowEnginePlan(what string, want *arrow.Schema, engine any) ([]arrow.DataType, error) {
	es, ok := engine.(*arrow.Schema)
	if !ok || es == nil {
		return nil, registry.UnsupportedOption(arrowModelName, fmt.Sprintf("an %s of type %T (it takes an *arrow.Schema)", what, engine))
	}
	if es.NumFields() != want.NumFields() {
		return nil, fmt.Errorf("%s has %d fields (%s), the Iceberg schema %d (%s)",
			what, es.NumFields(), arrowFieldNames(es.Fields()), want.NumFields(), arrowFieldNames(want.Fields()))
	}
	casts := make([]arrow.DataType, want.NumFields())
	for i, w := range want.Fields() {
		e := es.Field(i)
		if e.Name != w.Name {
			return nil, fmt.Errorf("%s field %d is %q, the Iceberg schema has %q", what, i, e.Name, w.Name)
		}
		if arrowMatchType(w.Name, w.Type, e.Type) == nil {
			continue
		}
		if !slices.Contains(arrowEngineTypes[w.Type.ID()], e.Type.ID()) {
			return nil, fmt.Errorf("%s field %s has type %s, which does not represent %s", what, w.Name, e.Type, w.Type)
		}
		casts[i] = e.Type
	}
	return casts, nil
}

// arrowCastColumn casts a to dt with arrow-go's safe cast (overflow fails).
func arrowCastColumn(a arrow.Array, dt arrow.DataType) (arrow.Array, error) {
	ctx := compute.WithAllocator(context.Background(), arrowMem)
	return compute.CastArray(ctx, a, compute.SafeCastOptions(dt))
}

// errAADWithoutKey is Java's Parquet builders' message for an AAD prefix
// given without a key.
var errAADWithoutKey = errors.New("AAD prefix set with null encryption key")

// arrowCheckKey validates the encryption settings: nil, nil is no
// encryption; a key must be an AES key.
func arrowCheckKey(key, aad []byte) error {
	if key == nil {
		if aad != nil {
			return errAADWithoutKey
		}
		return nil
	}
	switch len(key) {
	case 16, 24, 32:
		return nil
	}
	return fmt.Errorf("file encryption key is %d bytes; an AES key is 16, 24 or 32 bytes", len(key))
}

// arrowEncryptionProps is Iceberg's FileEncryptionProperties in arrow-go:
// the footer key for footer and columns, the AAD prefix not stored.
func arrowEncryptionProps(key, aad []byte) *parquet.FileEncryptionProperties {
	var opts []parquet.EncryptOption
	if len(aad) > 0 {
		// DisableAadPrefixStorage must follow WithAadPrefix.
		opts = append(opts, parquet.WithAadPrefix(string(aad)), parquet.DisableAadPrefixStorage())
	}
	return parquet.NewFileEncryptionProperties(string(key), opts...)
}

// arrowDecryptionProps is Iceberg's FileDecryptionProperties in arrow-go.
// A fresh value is needed per file: arrow-go marks it used.
func arrowDecryptionProps(key, aad []byte) *parquet.FileDecryptionProperties {
	opts := []parquet.FileDecryptionOption{parquet.WithFooterKey(string(key))}
	if len(aad) > 0 {
		opts = append(opts, parquet.WithDecryptAadPrefix(string(aad)))
	}
	return parquet.NewFileDecryptionProperties(opts...)
}
