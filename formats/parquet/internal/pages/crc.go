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
	if got := crc32.ChecksumIEEE(body); got != uint32(h.CRC) {
		return true, fmt.Errorf("page checksum mismatch: the header says %08x, the page's bytes give %08x", uint32(h.CRC), got)
	}
	return true, nil
}
