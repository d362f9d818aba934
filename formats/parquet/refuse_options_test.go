package parquet_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
)

// The parquet-go and position-delete models cannot encrypt and have no
// engine schema: they refuse each setting, naming themselves.
func TestParquetModelsRefuseEncryptionAndEngineSchema(t *testing.T) {
	sc := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64))
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.parquet")
	writeRecords(t, plain, sc, nil, data.Of(sc, int64(1)))
	for _, set := range []struct {
		name     string
		key, aad []byte
		engine   any
		want     string
	}{
		{"key", []byte("0123456789abcdef"), nil, nil, "file encryption keys"},
		{"aad", nil, []byte("prefix"), nil, "an AAD prefix"},
		{"engine", nil, nil, arrow.NewSchema(nil, nil), "an engine"},
	} {
		path := filepath.Join(dir, set.name+".parquet")
		b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Schema(sc).WithFileEncryptionKey(set.key).WithAADPrefix(set.aad).EngineSchema(set.engine).Build()
		if !errors.Is(err, registry.ErrUnsupportedOption) || !strings.Contains(err.Error(), "the "+parquet.RecordModelName+" model does not support "+set.want) {
			t.Errorf("%s: record writer: %v", set.name, err)
		}

		pb, err := registry.PositionDeleteWriteBuilder(registry.PARQUET, registry.LocalOutput(path))
		if err != nil {
			t.Fatal(err)
		}
		_, err = pb.WithFileEncryptionKey(set.key).WithAADPrefix(set.aad).EngineSchema(set.engine).Build()
		if !errors.Is(err, registry.ErrUnsupportedOption) || !strings.Contains(err.Error(), "the "+parquet.PositionDeleteModelName+" model does not support "+set.want) {
			t.Errorf("%s: position-delete writer: %v", set.name, err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: file left behind (%v)", set.name, err)
		}

		_, err = tryReadRecords(plain, func(b *registry.ReadBuilder[*data.Record]) {
			b.WithFileEncryptionKey(set.key).WithAADPrefix(set.aad).EngineProjection(set.engine)
		})
		if !errors.Is(err, registry.ErrUnsupportedOption) || !strings.Contains(err.Error(), "the "+parquet.RecordModelName+" model does not support "+set.want) {
			t.Errorf("%s: record reader: %v", set.name, err)
		}
		prb, err := registry.NewReadBuilder[data.PositionDelete](registry.PARQUET, registry.LocalInput(plain))
		if err != nil {
			t.Fatal(err)
		}
		_, err = prb.WithFileEncryptionKey(set.key).WithAADPrefix(set.aad).EngineProjection(set.engine).Build()
		if !errors.Is(err, registry.ErrUnsupportedOption) || !strings.Contains(err.Error(), "the "+parquet.PositionDeleteModelName+" model does not support "+set.want) {
			t.Errorf("%s: position-delete reader: %v", set.name, err)
		}
	}
}
