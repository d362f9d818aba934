package avro_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// A key under write.avro. the Avro models do not honour is refused naming
// it, and no file is left; the data and delete writers' own keys pass.
func TestUnknownAvroWritePropertyIsRefused(t *testing.T) {
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	path := tempPath(t, "refused.avro")
	b, err := registry.DataWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Schema(schema).Set("write.avro.compression-codec", "zstd").Set("write.avro.sync-interval", "10").Build()
	var up *registry.UnknownPropertyError
	if !errors.As(err, &up) || up.Key != "write.avro.sync-interval" || !strings.Contains(err.Error(), "write.avro.sync-interval-bytes") {
		t.Fatalf("err = %v, want the unknown key named and the known ones listed", err)
	}
	if _, serr := os.Stat(path); !os.IsNotExist(serr) {
		t.Fatalf("the refused write left %s", path)
	}
	writeRecords(t, tempPath(t, "ok.avro"), schema, []*data.Record{data.Of(schema, int64(1))},
		map[string]string{"write.avro.sync-interval-bytes": "1000", "write.delete.avro.compression-codec": "snappy", "write.format.default": "avro"})
}
