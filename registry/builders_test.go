package registry_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// The settings of Java's FileWriterBuilder that the registry once lacked
// reach the model: engineSchema, meta(Map), equalityFieldIds(List),
// withFileEncryptionKey and withAADPrefix.
func TestWriteBuilderPassesSettings(t *testing.T) {
	var seen registry.WriteOptions
	reg := registry.New()
	if err := reg.Register(lineModel[*data.Record]{name: "line-records", format: registry.PARQUET, encode: recordLine, seen: &seen}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	type engineSchema struct{ name string }
	key, aad := []byte("0123456789abcdef"), []byte("prefix")
	b, err := registry.DataWriteBuilderIn[*data.Record](reg, registry.PARQUET, registry.LocalOutput(filepath.Join(dir, "d.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(tourSchema).
		EngineSchema(engineSchema{"rows"}).
		Meta("a", "1").
		MetaAll(map[string]string{"b": "2", "c": "3"}).
		WithFileEncryptionKey(key).
		WithAADPrefix(aad).
		Build()
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Abort()
	key[0], aad[0] = 'X', 'X' // the builder keeps its own copies
	if seen.EngineSchema != (engineSchema{"rows"}) {
		t.Errorf("engine schema %v", seen.EngineSchema)
	}
	if want := map[string]string{"a": "1", "b": "2", "c": "3"}; !reflect.DeepEqual(seen.FileMetadata, want) {
		t.Errorf("file metadata %v, want %v", seen.FileMetadata, want)
	}
	if string(seen.FileEncryptionKey) != "0123456789abcdef" || string(seen.AADPrefix) != "prefix" {
		t.Errorf("encryption key %q, AAD prefix %q", seen.FileEncryptionKey, seen.AADPrefix)
	}

	eb, err := registry.EqualityDeleteWriteBuilderIn[*data.Record](reg, registry.PARQUET, registry.LocalOutput(filepath.Join(dir, "eq.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	ids := []int{2, 1}
	ew, err := eb.Schema(tourSchema).EqualityFieldIDList(ids).Build()
	if err != nil {
		t.Fatal(err)
	}
	ids[0] = 7
	_ = ew.Abort()
	if !reflect.DeepEqual(seen.EqualityFieldIDs, []int{2, 1}) || seen.FileMetadata[registry.DeleteFieldIDsKey] != "2, 1" {
		t.Errorf("equality field ids %v, footer %q", seen.EqualityFieldIDs, seen.FileMetadata[registry.DeleteFieldIDsKey])
	}
}

// Java's FileWriterBuilderImpl.equalityFieldIds throws
// UnsupportedOperationException("Equality field ids not supported for this
// writer type") unless the builder writes equality deletes.
func TestEqualityFieldIDsRefusedOutsideEqualityDeletes(t *testing.T) {
	reg := testRegistry(t)
	dir := t.TempDir()
	const want = "Equality field ids not supported for this writer type"

	db, err := registry.DataWriteBuilderIn[*data.Record](reg, registry.PARQUET, registry.LocalOutput(filepath.Join(dir, "d.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Schema(tourSchema).EqualityFieldIDs(1).Build(); !errors.Is(err, registry.ErrEqualityFieldIDsNotSupported) || err.Error() != want {
		t.Errorf("data builder: %v", err)
	}
	db2, _ := registry.DataWriteBuilderIn[*data.Record](reg, registry.PARQUET, registry.LocalOutput(filepath.Join(dir, "d2.parquet")))
	if _, err := db2.Schema(tourSchema).EqualityFieldIDList(nil).Build(); !errors.Is(err, registry.ErrEqualityFieldIDsNotSupported) {
		t.Errorf("data builder, empty list: %v", err)
	}

	pb, err := registry.PositionDeleteWriteBuilderIn(reg, registry.PARQUET, registry.LocalOutput(filepath.Join(dir, "p.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pb.EqualityFieldIDs(1, 2).Build(); !errors.Is(err, registry.ErrEqualityFieldIDsNotSupported) || err.Error() != want {
		t.Errorf("position-delete builder: %v", err)
	}
	if got := pb.Options().EqualityFieldIDs; got != nil {
		t.Errorf("refused ids kept: %v", got)
	}
}

// The read builder's engine projection and decryption settings reach the model.
func TestReadBuilderPassesSettings(t *testing.T) {
	reg := testRegistry(t)
	b, err := registry.ReadBuilderIn[*data.Record](reg, registry.PARQUET, registry.LocalInput("x.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("0123456789abcdef")
	opts := b.EngineProjection("engine").WithFileEncryptionKey(key).WithAADPrefix([]byte("p")).Options()
	key[0] = 'X'
	if opts.EngineProjection != "engine" || string(opts.FileEncryptionKey) != "0123456789abcdef" || string(opts.AADPrefix) != "p" {
		t.Errorf("options %+v", opts)
	}
}

func TestRefuseOptions(t *testing.T) {
	if err := registry.RefuseWriteOptions("m", registry.WriteOptions{}); err != nil {
		t.Errorf("nothing set: %v", err)
	}
	if err := registry.RefuseReadOptions("m", registry.ReadOptions{}); err != nil {
		t.Errorf("nothing set: %v", err)
	}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{registry.RefuseWriteOptions("m", registry.WriteOptions{EngineSchema: 1}), "the m model does not support an engine schema (got int)"},
		{registry.RefuseWriteOptions("m", registry.WriteOptions{FileEncryptionKey: []byte{}}), "the m model does not support file encryption keys"},
		{registry.RefuseWriteOptions("m", registry.WriteOptions{AADPrefix: []byte{1}}), "the m model does not support an AAD prefix"},
		{registry.RefuseReadOptions("m", registry.ReadOptions{EngineProjection: "s"}), "the m model does not support an engine projection (got string)"},
		{registry.RefuseReadOptions("m", registry.ReadOptions{FileEncryptionKey: []byte{1}}), "the m model does not support file encryption keys"},
		{registry.RefuseReadOptions("m", registry.ReadOptions{AADPrefix: []byte{1}}), "the m model does not support an AAD prefix"},
	} {
		if !errors.Is(tt.err, registry.ErrUnsupportedOption) || !strings.HasPrefix(tt.err.Error(), tt.want) {
			t.Errorf("got %v, want %q", tt.err, tt.want)
		}
	}
}
