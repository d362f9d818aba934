package peers

import (
	"fmt"

	"github.com/coltype-lab/lab/internal/publish"
	"github.com/coltype-lab/lab/types/vector"
)

// WriteSidecar writes m as the raw vector file LanceDB and FAISS load: the
// rows one after another, each Dim float32 values, little-endian, nothing
// else; row i gets id i.
func WriteSidecar(path string, m vector.Matrix) error {
	if m.Dim < 1 || len(m.Data)%m.Dim != 0 {
		return fmt.Errorf("sidecar %s: %d values do not make rows of dimension %d", path, len(m.Data), m.Dim)
	}
	b, err := vector.Float32.EncodeAppend(make([]byte, 0, 4*len(m.Data)), m.Data)
	if err != nil {
		return fmt.Errorf("sidecar %s: %w", path, err)
	}
	if err := publish.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("sidecar: %w", err)
	}
	return nil
}
