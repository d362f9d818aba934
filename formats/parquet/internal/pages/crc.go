package pages

import (
	"fmt"
	"hash/crc32"

	"github.com/parquet-go/parquet-go/format"
)

// CheckCRC verifies a page's bytes as stored after its header against the
// header's CRC (parquet.thrift PageHeader.crc: CRC32 of the compressed page,
// levels included for v2) and reports whether there was one to verify. A CRC
// of 0 counts as none, as parquet-go reads it: its model cannot tell an
// absent CRC from a zero one.
func CheckCRC(h *format.PageHeader, body []byte) (checked bool, err error) {
	if h.CRC == 0 {
		return false, nil
	}
	if got := checksumIEEE(body); got != uint32(h.CRC) {
		return true, fmt.Errorf("page checksum mismatch: the header says %08x, the page's bytes give %08x", uint32(h.CRC), got)
	}
	return true, nil
}

// crcFoldMin is the shortest input checksumIEEE hands to the wide-fold
// kernel; below it hash/crc32 (128-bit PCLMULQDQ folds on amd64) is as fast.
const crcFoldMin = 256

// crcForceGo, set by tests, makes checksumIEEE use hash/crc32 only.
var crcForceGo bool

// crcUseFold reports whether checksumIEEE takes the wide-fold kernel
// (crcFold, in crc_amd64.go) for an n-byte input.
func crcUseFold(n int) bool {
	return haveCRCFold && n >= crcFoldMin && !crcForceGo
}

// checksumIEEE is crc32.ChecksumIEEE(b): CRC-32 with the IEEE polynomial.
// On amd64 with AVX2 and VPCLMULQDQ, inputs of crcFoldMin bytes or more go
// through crcFold, which folds 4 × 256 bits an iteration.
func checksumIEEE(b []byte) uint32 {
	if crcUseFold(len(b)) {
		return crcFold(b)
	}
	return crc32.ChecksumIEEE(b)
}
