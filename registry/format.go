// Package registry mirrors Iceberg 1.11's File Format API: a closed set of
// file formats, an open set of row types, and one registry of format models
// keyed by the pair. It knows no concrete format; format packages register
// their models from init(), as image.RegisterFormat and database/sql.Register
// do, so the registry's contents depend on what a program imports.
package registry

import (
	"fmt"
	"strings"
)

// FileFormat is Iceberg's closed FileFormat enum. The lab studies the fact
// that this list is closed: a new format (Lance, Vortex) cannot be named here,
// while a new row type can be registered by any package.
type FileFormat int

const (
	PUFFIN FileFormat = iota
	ORC
	PARQUET
	AVRO
	METADATA
)

// FileFormats lists every value in Iceberg's declaration order.
var FileFormats = []FileFormat{PUFFIN, ORC, PARQUET, AVRO, METADATA}

type formatInfo struct {
	name       string
	ext        string
	splittable bool
}

// The names, extensions and splittability are Iceberg's (FileFormat.java).
var formatInfos = map[FileFormat]formatInfo{
	PUFFIN:   {"PUFFIN", "puffin", false},
	ORC:      {"ORC", "orc", true},
	PARQUET:  {"PARQUET", "parquet", true},
	AVRO:     {"AVRO", "avro", true},
	METADATA: {"METADATA", "metadata.json", false},
}

func (f FileFormat) info() formatInfo {
	if i, ok := formatInfos[f]; ok {
		return i
	}
	return formatInfo{name: fmt.Sprintf("FileFormat(%d)", int(f))}
}

// String returns the format's upper-case name, e.g. "PARQUET".
func (f FileFormat) String() string { return f.info().name }

// Splittable reports whether a reader can start at a split offset inside a file.
func (f FileFormat) Splittable() bool { return f.info().splittable }

// Ext is the file name extension without the dot, e.g. "parquet".
func (f FileFormat) Ext() string { return f.info().ext }

// AddExtension appends the format's extension to name unless it is there.
func (f FileFormat) AddExtension(name string) string {
	if strings.HasSuffix(name, "."+f.Ext()) {
		return name
	}
	return name + "." + f.Ext()
}

// ParseFileFormat accepts a format name in any case. Any name outside the
// closed list fails before a registry is consulted, with Iceberg's message.
func ParseFileFormat(name string) (FileFormat, error) {
	for _, f := range FileFormats {
		if strings.EqualFold(f.String(), name) {
			return f, nil
		}
	}
	return 0, fmt.Errorf("Invalid file format: %s", name) //nolint:staticcheck // Iceberg's exact wording
}

// FromFileName infers the format from a file name's extension, as Iceberg's
// FileFormat.fromFileName does; ok is false when no format matches.
func FromFileName(name string) (f FileFormat, ok bool) {
	for _, f := range FileFormats {
		if strings.HasSuffix(name, "."+f.Ext()) {
			return f, true
		}
	}
	return 0, false
}
