//go:build unix

package vectorcol

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO given as the file fails at once instead of blocking the open.
func TestOpenColumnRefusesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "emb.parquet")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := OpenColumn(fifo, "")
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), fifo+" is a named pipe (FIFO), not a regular file") {
			t.Fatalf("OpenColumn: %v, want the FIFO refused by name", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OpenColumn blocked on a FIFO")
	}
}
