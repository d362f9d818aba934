package parquet_test

import (
	"bytes"
	"errors"
	"io"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
)

// fixedBytesFile writes fixed(3), uuid and decimal(20,2) columns over
// small pages and row groups: a run of all-null rows, then values of both
// signs, so that pages of nothing but nulls sit beside pages of values.
func fixedBytesFile(t *testing.T) (string, []*big.Int) {
	t.Helper()
	s := iceberg.NewSchema(0,
		opt(1, "fx", iceberg.FixedTypeOf(3)),
		opt(2, "u", iceberg.PrimitiveTypes.UUID),
		opt(3, "d", iceberg.DecimalTypeOf(20, 2)),
		req(4, "dr", iceberg.DecimalTypeOf(38, 0)))
	var recs []*data.Record
	var unscaled []*big.Int
	for i := range 3000 {
		// Required decimals swing across zero and far out, both signs.
		v := big.NewInt(int64(i%97-48) * 1_000_000_007)
		v.Mul(v, big.NewInt(int64(i%5+1)))
		if i%7 == 0 {
			v.Lsh(v, 60)
		}
		unscaled = append(unscaled, v)
		dr := iceberg.Decimal{Val: decimal128.FromBigInt(v), Scale: 0}
		if i >= 600 && i < 1500 {
			recs = append(recs, data.Of(s, nil, nil, nil, dr))
			continue
		}
		u := uuid.UUID{}
		u[0], u[15] = byte(i*31), byte(i)
		recs = append(recs, data.Of(s, []byte{byte(i), byte(i >> 8), 0xff}, u,
			iceberg.Decimal{Val: decimal128.FromI64(int64(i%201-100) * 37), Scale: 2}, dr))
	}
	path := tempFile(t, "fixed.parquet")
	writeRecords(t, path, s, map[string]string{"write.parquet.page-size-bytes": "300", "write.parquet.row-group-limit": "1000"}, recs...)
	return path, unscaled
}

// TestFixedBytesColumnIndexes checks every FIXED_LEN_BYTE_ARRAY column's
// ColumnIndex against the pages it describes: one entry per page in every
// list, empty bounds exactly on pages of nulls, and every value of a page
// within its bounds in the column's order (signed for decimals).
func TestFixedBytesColumnIndexes(t *testing.T) {
	path, _ := fixedBytesFile(t)
	pf := openPQ(t, path)
	nullPages := 0
	for g, rg := range pf.RowGroups() {
		for c, cc := range rg.ColumnChunks() {
			raw := pf.ColumnIndexes()[g*len(rg.ColumnChunks())+c]
			n := len(raw.NullPages)
			if len(raw.MinValues) != n || len(raw.MaxValues) != n {
				t.Fatalf("row group %d column %d: %d null_pages, %d min values, %d max values", g, c, n, len(raw.MinValues), len(raw.MaxValues))
			}
			if _, err := cc.ColumnIndex(); err != nil {
				t.Fatalf("row group %d column %d: %v", g, c, err)
			}
			// parquet-go reads decimals back with its unsigned byte order:
			// compare them as numbers here.
			compare := func(a, b []byte) int { return bytes.Compare(a, b) }
			if c >= 2 {
				compare = func(a, b []byte) int { return twosComplement(a).Cmp(twosComplement(b)) }
			}
			checkBoundaryOrder(t, raw, compare)
			pages := cc.Pages()
			for page := 0; ; page++ {
				p, err := pages.ReadPage()
				if errors.Is(err, io.EOF) {
					if page != n {
						t.Errorf("row group %d column %d: %d pages, %d index entries", g, c, page, n)
					}
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				values := make([]pq.Value, p.NumValues())
				k, err := p.Values().ReadValues(values)
				if err != nil && !errors.Is(err, io.EOF) {
					t.Fatal(err)
				}
				present := 0
				for _, v := range values[:k] {
					if v.IsNull() {
						continue
					}
					present++
					if compare(v.ByteArray(), raw.MinValues[page]) < 0 || compare(v.ByteArray(), raw.MaxValues[page]) > 0 {
						t.Fatalf("row group %d column %d page %d: %x outside [%x, %x]", g, c, page, v.ByteArray(), raw.MinValues[page], raw.MaxValues[page])
					}
				}
				if raw.NullPages[page] != (present == 0) {
					t.Errorf("row group %d column %d page %d: null_pages %v with %d values", g, c, page, raw.NullPages[page], present)
				}
				if raw.NullPages[page] {
					nullPages++
					if len(raw.MinValues[page]) != 0 || len(raw.MaxValues[page]) != 0 {
						t.Errorf("row group %d column %d page %d: a page of nulls has bounds", g, c, page)
					}
				}
				pq.Release(p)
			}
			pages.Close()
		}
	}
	if nullPages == 0 {
		t.Fatal("no page of nulls: the test does not cover them")
	}
}

// checkBoundaryOrder holds an ASCENDING or DESCENDING index to its word
// over the pages with bounds.
func checkBoundaryOrder(t *testing.T, ci format.ColumnIndex, compare func(a, b []byte) int) {
	t.Helper()
	want := 0
	switch ci.BoundaryOrder {
	case format.Ascending:
		want = 1
	case format.Descending:
		want = -1
	default:
		return
	}
	last := -1
	for p := range ci.NullPages {
		if ci.NullPages[p] {
			continue
		}
		if last >= 0 && (compare(ci.MinValues[last], ci.MinValues[p])*want > 0 || compare(ci.MaxValues[last], ci.MaxValues[p])*want > 0) {
			t.Errorf("boundary order %v, but pages %d and %d are out of it", ci.BoundaryOrder, last, p)
		}
		last = p
	}
}

// TestDecimalStatisticsAreSigned checks the row groups' min and max of a
// decimal(38,0) column against the values written, in numeric order.
func TestDecimalStatisticsAreSigned(t *testing.T) {
	path, unscaled := fixedBytesFile(t)
	pf := openPQ(t, path)
	for g, rg := range pf.Metadata().RowGroups {
		lo, hi := unscaled[g*1000], unscaled[g*1000]
		for _, v := range unscaled[g*1000 : (g+1)*1000] {
			if v.Cmp(lo) < 0 {
				lo = v
			}
			if v.Cmp(hi) > 0 {
				hi = v
			}
		}
		st := rg.Columns[3].MetaData.Statistics
		gotLo, gotHi := twosComplement(st.MinValue), twosComplement(st.MaxValue)
		if gotLo.Cmp(lo) != 0 || gotHi.Cmp(hi) != 0 {
			t.Errorf("row group %d: statistics [%s, %s], values span [%s, %s]", g, gotLo, gotHi, lo, hi)
		}
		if lo.Sign() >= 0 || hi.Sign() <= 0 {
			t.Fatalf("row group %d does not mix signs: the test does not cover the order", g)
		}
	}
}

// twosComplement reads a big-endian two's complement integer.
func twosComplement(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}
