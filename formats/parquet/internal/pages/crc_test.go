package pages

import (
	"bytes"
	"hash/crc32"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

// crcTestData returns n pseudo-random bytes (fixed seed).
func crcTestData(n int) []byte {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestChecksumIEEEEveryLength(t *testing.T) {
	data := crcTestData(4096 + 64)
	for n := 0; n <= 4096; n++ {
		for _, off := range []int{0, 1, 7, 33} {
			b := data[off : off+n]
			if got, want := checksumIEEE(b), crc32.ChecksumIEEE(b); got != want {
				t.Fatalf("len %d offset %d: got %08x, want %08x", n, off, got, want)
			}
		}
	}
}

func TestChecksumIEEEAlignments(t *testing.T) {
	const max = 8 << 20
	data := crcTestData(max + 64)
	r := rand.New(rand.NewPCG(2, 3))
	for off := 0; off < 64; off++ {
		// One length up to 8 MiB and one up to 64 KiB per offset, plus the
		// full 8 MiB at a few offsets.
		lens := []int{r.IntN(max + 1), r.IntN(64<<10 + 1)}
		if off%16 == 0 {
			lens = append(lens, max)
		}
		for _, n := range lens {
			b := data[off : off+n]
			if got, want := checksumIEEE(b), crc32.ChecksumIEEE(b); got != want {
				t.Fatalf("len %d offset %d: got %08x, want %08x", n, off, got, want)
			}
		}
	}
}

// TestChecksumIEEESpecial covers inputs whose folds see all-zero and all-one
// lanes, and single-bit flips at every position of a 1 KiB input (each must
// change the checksum as hash/crc32's does).
func TestChecksumIEEESpecial(t *testing.T) {
	for _, n := range []int{256, 384, 1024, 1 << 16} {
		for _, fill := range []byte{0x00, 0xff} {
			b := bytes.Repeat([]byte{fill}, n)
			if got, want := checksumIEEE(b), crc32.ChecksumIEEE(b); got != want {
				t.Fatalf("len %d fill %#x: got %08x, want %08x", n, fill, got, want)
			}
		}
	}
	b := make([]byte, 1024)
	for i := 0; i < len(b)*8; i++ {
		b[i/8] ^= 1 << (i % 8)
		if got, want := checksumIEEE(b), crc32.ChecksumIEEE(b); got != want {
			t.Fatalf("bit %d: got %08x, want %08x", i, got, want)
		}
		b[i/8] ^= 1 << (i % 8)
	}
}

// TestChecksumIEEEForceGo checks the portable path (crcForceGo) and that
// forcing it turns the kernel off.
func TestChecksumIEEEForceGo(t *testing.T) {
	crcForceGo = true
	defer func() { crcForceGo = false }()
	if crcUseFold(1 << 20) {
		t.Fatal("crcUseFold with crcForceGo set")
	}
	data := crcTestData(1<<16 + 3)
	for _, n := range []int{0, 1, 255, 256, 1000, 1 << 16} {
		b := data[3 : 3+n]
		if got, want := checksumIEEE(b), crc32.ChecksumIEEE(b); got != want {
			t.Fatalf("len %d: got %08x, want %08x", n, got, want)
		}
	}
}

// cpuinfoHasCRCFold reports whether /proc/cpuinfo lists the features the
// kernel needs, and whether it could tell.
func cpuinfoHasCRCFold() (has, known bool) {
	raw, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false, false
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "flags") {
			continue
		}
		flags := map[string]bool{}
		for _, f := range strings.Fields(line) {
			flags[f] = true
		}
		return flags["avx"] && flags["avx2"] && flags["pclmulqdq"] && flags["vpclmulqdq"], true
	}
	return false, false
}

// TestChecksumIEEEFastPathTaken checks that on an amd64 CPU with AVX2 and
// VPCLMULQDQ (as /proc/cpuinfo says) checksumIEEE's dispatch takes the
// kernel for long inputs, and runs the kernel directly: the tests above
// cannot then pass by never running it.
func TestChecksumIEEEFastPathTaken(t *testing.T) {
	has, known := cpuinfoHasCRCFold()
	if runtime.GOARCH != "amd64" || !known {
		t.Skipf("GOARCH %s, cpuinfo known %v: nothing to check", runtime.GOARCH, known)
	}
	if !has {
		if haveCRCFold {
			t.Fatal("haveCRCFold without avx2/vpclmulqdq in /proc/cpuinfo")
		}
		t.Skip("the CPU lacks AVX2 or VPCLMULQDQ")
	}
	if !haveCRCFold {
		if !crcKernelBuilt {
			t.Skip("purego build: no kernel")
		}
		t.Fatal("CPU has AVX2 and VPCLMULQDQ but haveCRCFold is false")
	}
	for _, n := range []int{crcFoldMin, 4096, 1 << 20} {
		if !crcUseFold(n) {
			t.Fatalf("crcUseFold(%d) false on a CPU with the kernel", n)
		}
	}
	if crcUseFold(crcFoldMin - 1) {
		t.Fatalf("crcUseFold(%d) true below crcFoldMin", crcFoldMin-1)
	}
	data := crcTestData(1<<20 + 200)
	for _, n := range []int{128, 129, 143, 144, 255, 256, 300, 1 << 20, 1<<20 + 127} {
		b := data[5 : 5+n]
		if got, want := crcFold(b), crc32.ChecksumIEEE(b); got != want {
			t.Fatalf("crcFold len %d: got %08x, want %08x", n, got, want)
		}
	}
}

// xnModP returns x^n mod P for the CRC-32 IEEE polynomial P = 0x104C11DB7,
// in the normal (not reflected) representation.
func xnModP(n int) uint32 {
	var r uint64 = 1
	for i := 0; i < n; i++ {
		r <<= 1
		if r&(1<<32) != 0 {
			r ^= 0x104C11DB7
		}
	}
	return uint32(r)
}

// foldConst is the reflected folding constant for x^n mod P, shifted left by
// one as the 33-bit form PCLMULQDQ folding uses.
func foldConst(n int) uint64 { return uint64(bits.Reverse32(xnModP(n))) << 1 }

// reflect33 stores a polynomial of degree <= 32 (bit d for x^d) with bit j
// for x^(32-j).
func reflect33(p uint64) uint64 { return uint64(bits.Reverse32(uint32(p)))<<1 | p>>32&1 }

// polyDivX64 returns floor(x^64 / P) over GF(2), P = 0x104C11DB7.
func polyDivX64() uint64 {
	// The dividend x^64 as a 128-bit (hi, lo); subtract P·x^s while the
	// degree is at least 32.
	var hi, lo uint64 = 1, 0
	var q uint64
	for d := 64; d >= 32; d-- {
		var bit uint64
		if d == 64 {
			bit = hi & 1
		} else {
			bit = lo >> d & 1
		}
		if bit == 0 {
			continue
		}
		s := uint(d - 32)
		q |= 1 << s
		lo ^= uint64(0x104C11DB7) << s
		if s > 31 {
			hi ^= uint64(0x104C11DB7) >> (64 - s)
		}
	}
	return q
}

func TestCRCFoldConstants(t *testing.T) {
	// The derivation must give hash/crc32's amd64 constants (crc32_amd64.s:
	// r2r1 for 512-bit folds, r4r3 for 128-bit folds).
	if got := [4]uint64{foldConst(544), foldConst(480), foldConst(160), foldConst(96)}; got != [4]uint64{0x154442bd4, 0x1c6e41596, 0x1751997d0, 0x0ccaa009e} {
		t.Fatalf("derivation gives %#x, want hash/crc32's r2r1, r4r3", got)
	}
	if !crcKernelBuilt {
		t.Skip("no kernel in this build")
	}
	want := []uint64{}
	for _, d := range []int{1024, 256, 128} {
		want = append(want, foldConst(d+32), foldConst(d-32))
	}
	// x^64 mod P, then P and mu = floor(x^64 / P) in the 33-bit reflected
	// form (bit j for x^(32-j)).
	mu := polyDivX64()
	want = append(want, foldConst(64), reflect33(0x104C11DB7), reflect33(mu))
	if mu != 0x104D101DF {
		t.Errorf("mu = %#x, want 0x104D101DF", mu)
	}
	if got := [4]uint64{foldConst(64), reflect33(0x104C11DB7), reflect33(mu)}; got != [4]uint64{0x163cd6124, 0x1db710641, 0x1f7011641} {
		t.Errorf("x^64, P, mu give %#x, want hash/crc32's r5, rupoly", got)
	}
	if len(crcFoldConsts()) != len(want) {
		t.Fatalf("%d constants, want %d", len(crcFoldConsts()), len(want))
	}
	for i, k := range crcFoldConsts() {
		if k != want[i] {
			t.Errorf("crcFoldK[%d] = %#x, want %#x", i, k, want[i])
		}
	}
}

func TestCheckCRC(t *testing.T) {
	body := crcTestData(5000)
	h := &format.PageHeader{CRC: int32(crc32.ChecksumIEEE(body))}
	if ok, err := CheckCRC(h, body); !ok || err != nil {
		t.Fatalf("CheckCRC good = %v, %v", ok, err)
	}
	body[4321] ^= 4
	if ok, err := CheckCRC(h, body); !ok || err == nil {
		t.Fatalf("CheckCRC corrupt = %v, %v", ok, err)
	}
	if ok, err := CheckCRC(&format.PageHeader{}, body); ok || err != nil {
		t.Fatalf("CheckCRC none = %v, %v", ok, err)
	}
}

func FuzzChecksumIEEE(f *testing.F) {
	f.Add([]byte{}, uint8(0))
	f.Add(crcTestData(255), uint8(1))
	f.Add(crcTestData(256), uint8(0))
	f.Add(crcTestData(1000), uint8(63))
	f.Add(crcTestData(5000), uint8(17))
	f.Fuzz(func(t *testing.T, b []byte, off uint8) {
		// Also at a misaligned start within the input.
		for _, o := range []int{0, int(off % 64)} {
			if o > len(b) {
				continue
			}
			if got, want := checksumIEEE(b[o:]), crc32.ChecksumIEEE(b[o:]); got != want {
				t.Fatalf("len %d offset %d: got %08x, want %08x", len(b)-o, o, got, want)
			}
		}
	})
}
