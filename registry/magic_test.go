package registry_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/registry"
)

// The registry knows no format: these magics are registered here, as the
// format packages do from init(). The test binary imports no format.
func init() {
	registry.MustRegisterMagic(registry.PARQUET, "PAR1")
	registry.MustRegisterMagic(registry.AVRO, "Obj\x01")
}

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		want    registry.FileFormat
		wantErr string
	}{
		{"parquet", "PAR1\x15\x00rest", registry.PARQUET, ""},
		{"avro", "Obj\x01\x04rest", registry.AVRO, ""},
		{"exactly the magic", "PAR1", registry.PARQUET, ""},
		{"text", "hello, world", 0, `the file starts with "hell", which is no known format's magic (known: PARQUET "PAR1", AVRO "Obj\x01")`},
		{"avro version 2", "Obj\x02....", 0, `the file starts with "Obj\x02", which is no known format's magic`},
		{"short", "PA", 0, `the file is 2 bytes ("PA"), too short for any known magic (known: PARQUET "PAR1", AVRO "Obj\x01")`},
		{"empty", "", 0, `the file is 0 bytes (""), too short for any known magic`},
		{"four bytes that match nothing", "abcd", 0, `the file starts with "abcd", which is no known format's magic`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := registry.DetectFormat(bytes.NewReader([]byte(tt.file)))
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Fatalf("DetectFormat = %s, %v; want %s", got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("DetectFormat error = %v; want it to contain %s", err, tt.wantErr)
			}
			if !errors.Is(err, registry.ErrUnknownFormat) {
				t.Fatalf("error %v does not wrap ErrUnknownFormat", err)
			}
			var u *registry.UnknownFormatError
			if !errors.As(err, &u) || len(u.Known) != 2 || u.Known[0].Format != registry.PARQUET {
				t.Fatalf("error %#v does not list the known magics in format order", err)
			}
		})
	}
}

func TestDetectFormatBytes(t *testing.T) {
	if f, err := registry.DetectFormatBytes([]byte("Obj\x01")); err != nil || f != registry.AVRO {
		t.Fatalf("DetectFormatBytes(Obj 1) = %s, %v", f, err)
	}
	// A head longer than any magic is cut to it in the error.
	_, err := registry.DetectFormatBytes([]byte("0123456789"))
	var u *registry.UnknownFormatError
	if !errors.As(err, &u) || string(u.Head) != "0123" {
		t.Fatalf("DetectFormatBytes error = %v; want head \"0123\"", err)
	}
}

type failingReaderAt struct{}

func (failingReaderAt) ReadAt([]byte, int64) (int, error) { return 0, errors.New("disk on fire") }

func TestDetectFormatReadError(t *testing.T) {
	_, err := registry.DetectFormat(failingReaderAt{})
	if err == nil || !strings.Contains(err.Error(), "read the magic: disk on fire") || errors.Is(err, registry.ErrUnknownFormat) {
		t.Fatalf("DetectFormat error = %v; want the read error, not an unknown format", err)
	}
}

func TestRegisterMagicRefusesOverlap(t *testing.T) {
	if err := registry.RegisterMagic(registry.PARQUET, "PAR1"); err != nil {
		t.Fatalf("registering the same pair again: %v", err)
	}
	for _, m := range []string{"PAR", "PAR1x", "Obj"} {
		err := registry.RegisterMagic(registry.ORC, m)
		if err == nil || !strings.Contains(err.Error(), "overlaps magic") || !strings.Contains(err.Error(), "ORC") {
			t.Errorf("RegisterMagic(ORC, %q) = %v; want an overlap refusal naming ORC", m, err)
		}
	}
	if err := registry.RegisterMagic(registry.ORC, ""); err == nil {
		t.Error("an empty magic was accepted")
	}
}
