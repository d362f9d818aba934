package parquet_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// FuzzRecordReader feeds arbitrary bytes to the record reader: it must
// return records or an error naming the file, and never panic.
func FuzzRecordReader(f *testing.F) {
	dir := f.TempDir()
	s := allTypesSchema()
	path := filepath.Join(dir, "seed.parquet")
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		f.Fatal(err)
	}
	w, err := b.Schema(s).Build()
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range allTypesRecords(f, s) {
		if err := w.Write(r); err != nil {
			f.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)-1])
	f.Add(seed[len(seed)/2:])
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	footer := []byte{0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07}
	f.Add(append(append([]byte("PAR1"), footer...), append(binary.LittleEndian.AppendUint32(nil, uint32(len(footer))), "PAR1"...)...))
	corrupt := bytes.Clone(seed)
	corrupt[len(corrupt)/3] ^= 0xff
	f.Add(corrupt)

	proj := iceberg.NewSchema(0, opt(12, "s", iceberg.PrimitiveTypes.String), opt(26, "tags", &iceberg.ListType{ElementID: 27, Element: iceberg.PrimitiveTypes.String}))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p := filepath.Join(t.TempDir(), "fuzz.parquet")
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, configure := range []func(*registry.ReadBuilder[*data.Record]){
			nil,
			func(b *registry.ReadBuilder[*data.Record]) {
				b.Project(proj).Filter(iceberg.StartsWith(iceberg.Reference("s"), "h"))
			},
		} {
			if _, err := tryReadRecords(p, configure); err != nil && !strings.Contains(err.Error(), p) {
				t.Errorf("error %v does not name the file", err)
			}
		}
	})
}
