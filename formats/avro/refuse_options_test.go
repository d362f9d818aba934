package avro_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/avro"
	"github.com/coltype-lab/lab/registry"
)

// Avro has no encryption and no engine schema here: Java's AvroFormatModel
// throws "Avro does not support file encryption keys" / "... AAD prefix";
// both Avro models refuse each setting, naming themselves.
func TestAvroModelsRefuseEncryptionAndEngineSchema(t *testing.T) {
	sc := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.avro")
	b, err := registry.DataWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(plain))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(sc).Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(data.Of(sc, int64(1))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	for _, set := range []struct {
		name     string
		key, aad []byte
		engine   any
		want     string
	}{
		{"key", []byte("0123456789abcdef"), nil, nil, "file encryption keys"},
		{"aad", nil, []byte("prefix"), nil, "an AAD prefix"},
		{"engine", nil, nil, struct{}{}, "an engine"},
	} {
		check := func(what, model string, err error) {
			t.Helper()
			if !errors.Is(err, registry.ErrUnsupportedOption) || !strings.Contains(err.Error(), "the "+model+" model does not support "+set.want) {
				t.Errorf("%s: %s: %v", set.name, what, err)
			}
		}
		path := filepath.Join(dir, set.name+".avro")
		db, err := registry.DataWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(path))
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.Schema(sc).WithFileEncryptionKey(set.key).WithAADPrefix(set.aad).EngineSchema(set.engine).Build()
		check("record writer", avro.GenericModelName, err)
		pb, err := registry.PositionDeleteWriteBuilder(registry.AVRO, registry.LocalOutput(path))
		if err != nil {
			t.Fatal(err)
		}
		_, err = pb.WithFileEncryptionKey(set.key).WithAADPrefix(set.aad).EngineSchema(set.engine).Build()
		check("position-delete writer", avro.PositionDeleteModelName, err)
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: file left behind (%v)", set.name, err)
		}

		rb, err := registry.NewReadBuilder[*data.Record](registry.AVRO, registry.LocalInput(plain))
		if err != nil {
			t.Fatal(err)
		}
		_, err = rb.WithFileEncryptionKey(set.key).WithAADPrefix(set.aad).EngineProjection(set.engine).Build()
		check("record reader", avro.GenericModelName, err)
		prb, err := registry.NewReadBuilder[data.PositionDelete](registry.AVRO, registry.LocalInput(plain))
		if err != nil {
			t.Fatal(err)
		}
		_, err = prb.WithFileEncryptionKey(set.key).WithAADPrefix(set.aad).EngineProjection(set.engine).Build()
		check("position-delete reader", avro.PositionDeleteModelName, err)
	}
}
