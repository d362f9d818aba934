//go:build !amd64 || purego

package pages

// haveCRCFold is false: there is no CRC assembly here, and checksumIEEE
// always uses hash/crc32.
const haveCRCFold = false

// crcKernelBuilt is false: this build has no CRC kernel.
const crcKernelBuilt = false

// crcFoldConsts: there are none here.
func crcFoldConsts() []uint64 { return nil }

// crcFold is never called without haveCRCFold.
func crcFold(b []byte) uint32 { panic("pages: crcFold without haveCRCFold") }
