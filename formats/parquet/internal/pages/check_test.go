package pages

import "testing"

// The scratch pool keeps the page buffers of ordinary pages for the next
// chunk, and lets a huge page's buffer go.
func TestScratchPoolDropsHugeBuffers(t *testing.T) {
	huge := make([]byte, maxPooledScratch+1)
	putScratch(&huge)
	for range 4 {
		if b := getScratch(); cap(*b) > maxPooledScratch {
			t.Fatalf("the pool returned a %d-byte buffer, above its %d-byte bound", cap(*b), maxPooledScratch)
		}
	}
}
