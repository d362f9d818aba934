package pages

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// TestDecodeBSSRows decodes ranges of values, in tiles as a scan asks for
// them and at random, and compares each with the same values of the whole
// decode, on the assembly and the Go paths.
func TestDecodeBSSRows(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	bssPaths(t, func(t *testing.T) {
		for _, k := range bssTestWidths {
			for _, n := range bssTestCounts {
				if k*n > 4<<20 {
					continue
				}
				src := randBytes(r, k*n)
				want := bssNaive(src, k)
				ranges := [][2]int{{0, n}, {0, 0}, {n, 0}}
				for _, tile := range []int{1, 7, 8, 31, 32, 33, 64, 100} {
					for first := 0; first < n; first += tile {
						ranges = append(ranges, [2]int{first, min(tile, n-first)})
					}
				}
				for range 20 {
					if n > 0 {
						first := r.IntN(n)
						ranges = append(ranges, [2]int{first, r.IntN(n - first + 1)})
					}
				}
				for _, rg := range ranges {
					first, count := rg[0], rg[1]
					const guard = 40
					so, do := r.IntN(8), r.IntN(8)
					sbuf := append(randBytes(r, so), src...)
					dbuf := randBytes(r, do+count*k+guard)
					before := bytes.Clone(dbuf)
					dst := dbuf[do : do+count*k : do+count*k]
					if err := DecodeBSSRows(dst, sbuf[so:], k, first, count); err != nil {
						t.Fatalf("K=%d N=%d [%d, +%d): %v", k, n, first, count, err)
					}
					if w := want[first*k : (first+count)*k]; !bytes.Equal(dst, w) {
						t.Fatalf("K=%d N=%d [%d, +%d): first difference at %d", k, n, first, count, firstDiff(dst, w))
					}
					if !bytes.Equal(dbuf[:do], before[:do]) || !bytes.Equal(dbuf[do+count*k:], before[do+count*k:]) {
						t.Fatalf("K=%d N=%d [%d, +%d): wrote outside dst", k, n, first, count)
					}
					if !bytes.Equal(sbuf[so:], src) {
						t.Fatalf("K=%d N=%d: src modified", k, n)
					}
				}
			}
		}
	})
}

func TestDecodeBSSRowsErrors(t *testing.T) {
	for _, c := range []struct {
		dst, src, width, first, count int
	}{
		{4, 4, 0, 0, 1}, {4, 4, -1, 0, 1}, {5, 5, 4, 0, 1}, {8, 8, 4, 0, 1}, {4, 8, 4, 2, 1},
		{4, 8, 4, -1, 1}, {4, 8, 4, 0, -1}, {12, 8, 4, 0, 3}, {4, 8, 4, 1, 2}, {0, 8, 4, 3, 0},
		{3072, 3072 * 2, 3072, 2, 1},
	} {
		if err := DecodeBSSRows(make([]byte, c.dst), make([]byte, c.src), c.width, c.first, c.count); err == nil {
			t.Errorf("DecodeBSSRows(dst %d, src %d, width %d, first %d, count %d): no error", c.dst, c.src, c.width, c.first, c.count)
		}
	}
	if err := DecodeBSSRows(nil, make([]byte, 8), 4, 2, 0); err != nil {
		t.Errorf("an empty range at the end: %v", err)
	}
}

// FuzzDecodeBSSRows: any bytes, width and range give the values of the
// whole decode or an error, on both paths.
func FuzzDecodeBSSRows(f *testing.F) {
	f.Add(randBytes(rand.New(rand.NewPCG(5, 6)), 8*40), byte(8), uint16(3), uint16(33))
	f.Add(randBytes(rand.New(rand.NewPCG(7, 8)), 4*650), byte(4), uint16(100), uint16(64))
	f.Add(randBytes(rand.New(rand.NewPCG(13, 14)), 64*70), byte(64), uint16(5), uint16(40))
	f.Add(randBytes(rand.New(rand.NewPCG(15, 16)), 100*80), byte(100), uint16(40), uint16(40))
	f.Add(randBytes(rand.New(rand.NewPCG(17, 18)), 12*50), byte(12), uint16(0), uint16(50))
	f.Add([]byte{}, byte(0), uint16(0), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, w byte, first, count uint16) {
		width := int(w)
		var want []byte
		if width > 0 && len(data)%width == 0 {
			want = bssNaive(data, width)
		}
		for _, force := range []bool{false, true} {
			old := bssForceGo
			bssForceGo = force
			dst := make([]byte, int(count)*max(width, 0))
			err := DecodeBSSRows(dst, data, width, int(first), int(count))
			bssForceGo = old
			valid := want != nil && int(first)+int(count) <= len(data)/width
			if !valid {
				if err == nil {
					t.Fatalf("width %d, %d bytes, [%d, +%d): no error", width, len(data), first, count)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if w := want[int(first)*width : (int(first)+int(count))*width]; !bytes.Equal(dst, w) {
				t.Fatalf("force go %v, width %d, %d bytes, [%d, +%d): first difference at %d", force, width, len(data), first, count, firstDiff(dst, w))
			}
		}
	})
}

// BenchmarkDecodeBSSRowsScan is BenchmarkDecodeBSSScan's walk (pages of a
// buffer larger than the last-level cache, on every core, each decoded
// page read whole) with each page decoded in row tiles into one small
// buffer that is read right after: the scan shape of a fused decode and
// score. plain reads the source pages themselves; page decodes whole pages
// into a ring of page buffers, as before.
func BenchmarkDecodeBSSRowsScan(b *testing.B) {
	const total = 256 << 20
	big := randBytes(rand.New(rand.NewPCG(5, 5)), total)
	workers := runtime.GOMAXPROCS(0)
	const dim = 768
	for _, c := range []struct{ k, n, perRow int }{{3072, 341, 1}, {4, 341 * 768, dim}} {
		page := c.k * c.n
		pagesN := total / page
		rowBytes := c.k * c.perRow
		rows := c.n / c.perRow
		sink := make([]float32, workers)
		run := func(name string, tileRows int, ring int) {
			b.Run(fmt.Sprintf("K=%d/N=%d/%s", c.k, c.n, name), func(b *testing.B) {
				rings := make([][][]byte, workers)
				for w := range rings {
					n := ring
					size := page
					if tileRows > 0 {
						n, size = 1, tileRows*rowBytes
					}
					for range n {
						rings[w] = append(rings[w], make([]byte, size))
					}
				}
				b.SetBytes(int64(pagesN * page))
				for b.Loop() {
					var wg sync.WaitGroup
					for w := range workers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for p := w; p < pagesN; p += workers {
								src := big[p*page : (p+1)*page]
								switch {
								case tileRows < 0:
									sink[w] += sumFloats(src)
								case tileRows == 0:
									dst := rings[w][p%len(rings[w])]
									_ = DecodeBSS(dst, src, c.k)
									sink[w] += sumFloats(dst)
								default:
									tile := rings[w][0]
									for r0 := 0; r0 < rows; r0 += tileRows {
										nr := min(tileRows, rows-r0)
										t := tile[:nr*rowBytes]
										_ = DecodeBSSRows(t, src, c.k, r0*c.perRow, nr*c.perRow)
										sink[w] += sumFloats(t)
									}
								}
							}
						}()
					}
					wg.Wait()
				}
			})
		}
		for range 2 {
			run("plain", -1, 1)
			run("page", 0, 6)
			run("page1", 0, 1)
			for _, t := range []int{32, 64, 85, 128, 171} {
				run(fmt.Sprintf("tile%d", t), t, 1)
			}
		}
	}
}

// checkStripes decodes [first, first+count) of src by stripes and compares
// every plane of every stripe with the same bytes of the whole decode want.
func checkStripes(t *testing.T, src, want []byte, width, first, count int) {
	t.Helper()
	ps := BSSStripePlane(count)
	buf := make([]byte, 8*ps)
	next := 0
	err := DecodeBSSStripes(buf, src, width, first, count, func(k0 int, planes []byte) error {
		if k0 != next {
			t.Fatalf("K=%d [%d, +%d): stripe at %d, want %d", width, first, count, k0, next)
		}
		next += BSSStripeBytes
		for j := range 8 {
			for i := range count {
				w := want[(first+i)*width+k0+8*j : (first+i)*width+k0+8*j+8]
				if g := planes[j*ps+8*i : j*ps+8*i+8]; !bytes.Equal(g, w) {
					t.Fatalf("K=%d [%d, +%d): stripe %d, plane %d, value %d: %x, want %x", width, first, count, k0, j, first+i, g, w)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("K=%d [%d, +%d): %v", width, first, count, err)
	}
	if next != width {
		t.Fatalf("K=%d: %d bytes of stripes, want %d", width, next, width)
	}
}

func TestDecodeBSSStripes(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	bssPaths(t, func(t *testing.T) {
		for _, k := range []int{64, 128, 192, 3072} {
			for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 100, 341} {
				src := randBytes(r, k*n)
				want := bssNaive(src, k)
				checkStripes(t, src, want, k, 0, n)
				for range 6 {
					if n > 0 {
						first := r.IntN(n)
						checkStripes(t, src, want, k, first, r.IntN(n-first+1))
					}
				}
			}
		}
	})
}

func TestDecodeBSSStripesErrors(t *testing.T) {
	ok := func(int, []byte) error { return nil }
	for _, c := range []struct {
		buf, src, width, first, count int
	}{
		{256, 64, 32, 0, 1}, {256, 96, 96, 0, 1}, {256, 100, 64, 0, 1}, {256, 128, 64, 2, 1}, {64, 128, 64, 0, 1}, {512, 128, 64, 0, 1},
		{256, 128, 64, -1, 1}, {0, 128, 64, 0, -1}, {64 * (BSSStripeMaxValues + 4), 64 * (BSSStripeMaxValues + 1), 64, 0, BSSStripeMaxValues + 1},
	} {
		if err := DecodeBSSStripes(make([]byte, c.buf), make([]byte, c.src), c.width, c.first, c.count, ok); err == nil {
			t.Errorf("DecodeBSSStripes(buf %d, src %d, width %d, first %d, count %d): no error", c.buf, c.src, c.width, c.first, c.count)
		}
	}
	stop := fmt.Errorf("stop")
	calls := 0
	err := DecodeBSSStripes(make([]byte, 256), make([]byte, 128), 128, 0, 1, func(int, []byte) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Errorf("an error from fn: got %v after %d calls, want it after 1", err, calls)
	}
}

// FuzzDecodeBSSStripes: any bytes, width and range give the bytes of the
// whole decode, stripe by stripe, or an error, on both paths.
func FuzzDecodeBSSStripes(f *testing.F) {
	f.Add(randBytes(rand.New(rand.NewPCG(5, 6)), 64*40), uint16(64), uint16(3), uint16(33))
	f.Add(randBytes(rand.New(rand.NewPCG(7, 8)), 128*70), uint16(128), uint16(0), uint16(70))
	f.Add(randBytes(rand.New(rand.NewPCG(9, 10)), 3072*5), uint16(3072), uint16(1), uint16(4))
	f.Add([]byte{}, uint16(64), uint16(0), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, w, first, count uint16) {
		width := int(w)
		var want []byte
		if width >= 64 && width%64 == 0 && len(data)%width == 0 {
			want = bssNaive(data, width)
		}
		for _, force := range []bool{false, true} {
			old := bssForceGo
			bssForceGo = force
			ps := BSSStripePlane(int(count))
			buf := make([]byte, 8*ps)
			var got []byte // the planes put back in place
			if want != nil {
				got = make([]byte, int(count)*width)
			}
			err := DecodeBSSStripes(buf, data, width, int(first), int(count), func(k0 int, planes []byte) error {
				for j := range 8 {
					for i := range int(count) {
						copy(got[i*width+k0+8*j:], planes[j*ps+8*i:j*ps+8*i+8])
					}
				}
				return nil
			})
			bssForceGo = old
			valid := want != nil && int(first)+int(count) <= len(data)/width && int(count) <= BSSStripeMaxValues
			if !valid {
				if err == nil {
					t.Fatalf("width %d, %d bytes, [%d, +%d): no error", width, len(data), first, count)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if w := want[int(first)*width : (int(first)+int(count))*width]; !bytes.Equal(got, w) {
				t.Fatalf("force go %v, width %d, [%d, +%d): first difference at %d", force, width, first, count, firstDiff(got, w))
			}
		}
	})
}
