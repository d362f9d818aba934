package pages

import (
	"fmt"
	"hash/crc32"
	"testing"
)

// BenchmarkChecksumIEEE compares checksumIEEE (the VPCLMULQDQ kernel where
// the CPU has it) with hash/crc32.ChecksumIEEE at page-like sizes; compare
// the MB/s of the two within one run (the machine is shared).
func BenchmarkChecksumIEEE(b *testing.B) {
	impls := []struct {
		name string
		fn   func([]byte) uint32
	}{
		{"fast", checksumIEEE},
		{"crc32", crc32.ChecksumIEEE},
	}
	for _, size := range []int{1 << 20, 64 << 10, 4 << 10, 512, 256, 128} {
		data := crcTestData(size)
		for _, impl := range impls {
			b.Run(impl.name+"/"+crcSizeName(size), func(b *testing.B) {
				b.SetBytes(int64(size))
				var sink uint32
				for b.Loop() {
					sink += impl.fn(data)
				}
				_ = sink
			})
		}
	}
}

// crcSizeName names a benchmark size: 1MiB, 64KiB, 512B.
func crcSizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}
