// Package iocount is a FileIO over the local file system that counts the
// bytes read through it: what the benchmarks and tests use to say how much
// of a file a read touched.
package iocount

import (
	"io/fs"
	"sync/atomic"

	iceio "github.com/apache/iceberg-go/io"

	"github.com/coltype-lab/lab/registry"
)

// FS opens local files and counts every byte read from them. It cannot
// remove files.
type FS struct{ n atomic.Int64 }

// Bytes is how many bytes the files opened through f have read.
func (f *FS) Bytes() int64 { return f.n.Load() }

func (f *FS) Open(name string) (iceio.File, error) {
	file, err := registry.LocalInput(name).FS.Open(name)
	if err != nil {
		return nil, err
	}
	return &countingFile{File: file, n: &f.n}, nil
}

func (f *FS) Remove(string) error { return fs.ErrPermission }

type countingFile struct {
	iceio.File
	n *atomic.Int64
}

func (f *countingFile) Read(p []byte) (int, error) {
	k, err := f.File.Read(p)
	f.n.Add(int64(k))
	return k, err
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	k, err := f.File.ReadAt(p, off)
	f.n.Add(int64(k))
	return k, err
}
