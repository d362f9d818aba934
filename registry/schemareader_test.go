package registry_test

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// schemaModel's readers report tourSchema when withSchema is set.
type schemaModel struct {
	name       string
	withSchema bool
}

func (m schemaModel) Name() string                { return m.name }
func (m schemaModel) Format() registry.FileFormat { return registry.AVRO }
func (m schemaModel) RowType() reflect.Type       { return reflect.TypeFor[*data.Record]() }
func (m schemaModel) NewReader(registry.InputFile, registry.ReadOptions) (registry.Reader[*data.Record], error) {
	if m.withSchema {
		return &schemaReader{}, nil
	}
	return &plainReader{}, nil
}
func (m schemaModel) NewAppender(registry.OutputFile, registry.WriteOptions) (registry.FileAppender[*data.Record], error) {
	return nil, io.ErrUnexpectedEOF
}

type plainReader struct{ closed bool }

func (r *plainReader) Next() (*data.Record, error) { return nil, io.EOF }
func (r *plainReader) Close() error                { r.closed = true; return nil }

type schemaReader struct{ plainReader }

func (r *schemaReader) Schema() *iceberg.Schema { return tourSchema }

func TestFileSchema(t *testing.T) {
	for _, tt := range []struct {
		model   schemaModel
		wantErr string
	}{
		{schemaModel{name: "reports", withSchema: true}, ""},
		{schemaModel{name: "silent"}, "in.avro: the silent model's reader does not report its schema (registry.SchemaReader)"},
	} {
		t.Run(tt.model.name, func(t *testing.T) {
			reg := registry.New()
			if err := reg.Register(tt.model); err != nil {
				t.Fatal(err)
			}
			b, err := registry.ReadBuilderIn[*data.Record](reg, registry.AVRO, registry.InputFile{Location: "in.avro"})
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.FileSchema()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("FileSchema = %v, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !got.Equals(tourSchema) {
				t.Fatalf("FileSchema = %v, %v; want %v", got, err, tourSchema)
			}
		})
	}
	r := &schemaReader{}
	if s, err := registry.ReaderSchema[*data.Record](schemaModel{name: "m"}, r); err != nil || s != tourSchema {
		t.Fatalf("ReaderSchema = %v, %v", s, err)
	}
	if _, err := registry.ReaderSchema[*data.Record](schemaModel{name: "m"}, &plainReader{}); err == nil || !strings.Contains(err.Error(), "the m model's reader") {
		t.Fatalf("ReaderSchema of a plain reader: %v", err)
	}
}
