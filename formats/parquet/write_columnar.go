package parquet

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/internal/colmetrics"
)

// The write path is columnar: a record's values go straight into per-column
// batches of Parquet values, and a full batch reaches parquet-go column by
// column through its ColumnWriters. Building a parquet.Row per record and
// handing rows to WriteRows would copy every value three more times (row,
// batch of rows, parquet-go's own per-column split) for the same result.
//
// Top-level primitive fields, the bulk of most tables, take a fast path: a
// flat column holds exactly one value per row at repetition level 0, so a
// record's value is converted with a type switch and appended in place, and
// its metrics are observed per batch in one loop (colmetrics.ObserveValues)
// instead of per record. Every other field goes through the shredder and
// the per-record metrics walk; both paths write the same bytes.

// flatKind selects the conversion of a flat column's values.
type flatKind uint8

const (
	flatConverter flatKind = iota // any type: the column's converter
	flatBool
	flatInt32
	flatInt64
	flatFloat32
	flatFloat64
	flatDate
	flatTime
	flatTimestamp
	flatTimestampNano
	flatString
)

// flatKindOf is the fast conversion for an Iceberg primitive, when it has one.
func flatKindOf(t iceberg.Type) flatKind {
	switch t.(type) {
	case iceberg.BooleanType:
		return flatBool
	case iceberg.Int32Type:
		return flatInt32
	case iceberg.Int64Type:
		return flatInt64
	case iceberg.Float32Type:
		return flatFloat32
	case iceberg.Float64Type:
		return flatFloat64
	case iceberg.DateType:
		return flatDate
	case iceberg.TimeType:
		return flatTime
	case iceberg.TimestampType, iceberg.TimestampTzType:
		return flatTimestamp
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		return flatTimestampNano
	case iceberg.StringType:
		return flatString
	}
	return flatConverter
}

// batchField is how one top-level field of the schema reaches the batch.
type batchField struct {
	node *wnode
	// flat is set for a top-level primitive: its single leaf column gets
	// one value per row, appended by appendFlat.
	flat bool
	kind flatKind
	// observed is set when the collector takes the column's values from
	// the batch (colmetrics.Collector.Columnar).
	observed bool
	id       int
}

// columnBatch holds the rows waiting for parquet-go, column by column.
type columnBatch struct {
	root   *wnode
	fields []batchField
	// shredded are the leaf columns filled through the shredder.
	shredded []int
	// values are the waiting values of each leaf column.
	values [][]pq.Value
	// rowEnds are, for each shredded column, where each waiting row's
	// values end in values; nil for flat columns (row i is value i).
	rowEnds [][]int
	rows    int
	// bytes roughly sizes the waiting values, to honour small row groups.
	bytes int64
	// vec stages the VECTOR fields of the record being added; the
	// appender commits them once the record is accepted.
	vec *vectorWriter
	// groupBytes are, by column, the bytes written to the column writers
	// since the row group's last flush; nil when nothing was.
	groupBytes []int64
	// lastBytes are, by column, the bytes of the last batch written: the
	// next batch's columns weigh about as much (byWeight).
	lastBytes []int64
	// names are the leaf columns' dotted paths, for errors.
	names []string
	// fixed marks the leaf columns of fixed-width physical types, whose
	// values weigh 8 bytes each: only byte arrays need counting.
	fixed []bool
}

// newColumnBatch prepares the batch for plan. With flat unset every field
// goes through the shredder (the general path the tests compare the fast
// one with). Flat columns whose metrics the collector can take from the
// batch are handed to it.
func newColumnBatch(plan *writePlan, collector *colmetrics.Collector, flat bool) *columnBatch {
	b := &columnBatch{
		root:    plan.root,
		values:  make([][]pq.Value, plan.columns),
		rowEnds: make([][]int, plan.columns),
	}
	for i, n := range plan.root.children {
		f := batchField{node: n, id: plan.root.st.FieldList[i].ID}
		if flat && n.kind == wPrimitive {
			f.flat, f.kind = true, flatKindOf(n.typ)
			f.observed = collector.Columnar(f.id)
		} else {
			b.shredded = append(b.shredded, n.leaves...)
		}
		b.fields = append(b.fields, f)
	}
	for _, c := range b.shredded {
		b.rowEnds[c] = []int{}
	}
	b.fixed = make([]bool, plan.columns)
	if plan.schema != nil {
		for c, path := range plan.schema.Columns() {
			b.names = append(b.names, strings.Join(path, "."))
			if leaf, ok := plan.schema.Lookup(path...); ok && leaf.ColumnIndex == c && c < len(b.fixed) {
				k := leaf.Node.Type().Kind()
				b.fixed[c] = k != pq.ByteArray && k != pq.FixedLenByteArray
			}
		}
	}
	return b
}

// add shreds rec into the batch after check accepts it. A record that
// fails either leaves the batch as it was: the file stays writable.
func (b *columnBatch) add(s *shredder, rec *data.Record, check func(*data.Record) error) error {
	if rec == nil {
		return fmt.Errorf("record is nil")
	}
	if err := checkStruct(b.root, rec); err != nil {
		return err
	}
	// The shredder appends to the batch's own columns: its column slice is
	// the batch's for the call (one store, where three stores per column,
	// there and back, showed as 3% of a shredded write's CPU profile). A
	// refused record is cut back off them (rollback).
	own := s.cols
	s.cols = b.values
	defer func() { s.cols = own }()
	bytesBefore := b.bytes
	for i := range b.fields {
		f := &b.fields[i]
		var err error
		switch {
		case f.node.kind == wVector:
			err = b.stageVector(i, rec.Get(i))
		case f.flat:
			err = b.appendFlat(f, rec, i)
		default:
			err = s.value(f.node, rec.Get(i), 0)
		}
		if err != nil {
			b.rollback(bytesBefore)
			return err
		}
	}
	if err := check(rec); err != nil {
		b.rollback(bytesBefore)
		return err
	}
	for _, c := range b.shredded {
		from := b.rowStart(c)
		b.rowEnds[c] = append(b.rowEnds[c], len(b.values[c]))
		b.bytes += b.valueBytes(c, b.values[c][from:])
	}
	b.rows++
	return nil
}

// rowStart is where the record being added starts in shredded column c:
// the end of the batch's last row.
func (b *columnBatch) rowStart(c int) int {
	if ends := b.rowEnds[c]; len(ends) > 0 {
		return ends[len(ends)-1]
	}
	return 0
}

// rollback drops the values of a record that was refused, and their
// bytes.
func (b *columnBatch) rollback(bytes int64) {
	b.bytes = bytes
	for i := range b.fields {
		if f := &b.fields[i]; f.flat {
			b.values[f.node.col] = b.values[f.node.col][:b.rows]
		}
	}
	for _, c := range b.shredded {
		b.values[c] = b.values[c][:b.rowStart(c)]
	}
}

// appendFlat appends the top-level primitive value at pos of rec,
// converted as the column's converter would, with the levels the shredder
// would give it. The common types convert inline (flatValue); a value of
// another Go type goes to the column's converter, which converts it or
// names the error. The value is built in its slot of the batch: returning
// a 24-byte parquet.Value and copying it in cost a third of the call.
func (b *columnBatch) appendFlat(f *batchField, rec *data.Record, pos int) error {
	n := f.node
	values := append(b.values[n.col], pq.Value{})
	slot := &values[len(values)-1]
	size, ok := flatValue(f.kind, rec, pos, slot)
	if !ok {
		switch v := rec.Get(pos); {
		case v == nil && n.required:
			return fmt.Errorf("column %q: null value in required field", n.path)
		case v == nil:
			slot.SetDefinitionLevel(n.def - 1)
			slot.SetColumnIndex(n.col)
			b.values[n.col] = values
			b.bytes += 8
			return nil
		default:
			pv, err := n.conv(v)
			if err != nil {
				return fmt.Errorf("column %q: %w", n.path, err)
			}
			*slot = pv
			if k := pv.Kind(); k == pq.ByteArray || k == pq.FixedLenByteArray {
				size = len(pv.ByteArray())
			}
		}
	}
	// The repetition level of a flat column's values stays 0.
	slot.SetDefinitionLevel(n.def)
	slot.SetColumnIndex(n.col)
	b.values[n.col] = values
	b.bytes += 8 + int64(size)
	return nil
}

// flatValue stores in slot the value at pos of rec when it has the Go type
// the column kind expects, and returns the bytes it references. It reads
// with the record's typed getters, so that a value a typed setter stored is
// never boxed. ok is false for null, for another Go type and for a string
// that is not UTF-8: the column's converter decides those.
func flatValue(kind flatKind, rec *data.Record, pos int, slot *pq.Value) (size int, ok bool) {
	switch kind {
	case flatInt64:
		if x, ok := rec.GetInt64(pos); ok {
			*slot = pq.Int64Value(x)
			return 0, true
		}
	case flatString:
		if x, ok := rec.GetString(pos); ok && utf8.ValidString(x) {
			// As convString: strings are immutable and parquet-go copies
			// values into its page buffers, so the bytes need no copy.
			*slot = pq.ByteArrayValue(unsafe.Slice(unsafe.StringData(x), len(x)))
			return len(x), true
		}
	case flatInt32:
		if x, ok := rec.GetInt32(pos); ok {
			*slot = pq.Int32Value(x)
			return 0, true
		}
	case flatFloat64:
		if x, ok := rec.GetFloat64(pos); ok {
			*slot = pq.DoubleValue(x)
			return 0, true
		}
	case flatFloat32:
		if x, ok := rec.GetFloat32(pos); ok {
			*slot = pq.FloatValue(x)
			return 0, true
		}
	case flatBool:
		if x, ok := rec.GetBool(pos); ok {
			*slot = pq.BooleanValue(x)
			return 0, true
		}
	case flatDate:
		if x, ok := rec.Get(pos).(iceberg.Date); ok {
			*slot = pq.Int32Value(int32(x))
			return 0, true
		}
	case flatTime:
		if x, ok := rec.Get(pos).(iceberg.Time); ok {
			*slot = pq.Int64Value(int64(x))
			return 0, true
		}
	case flatTimestamp:
		if x, ok := rec.Get(pos).(iceberg.Timestamp); ok {
			*slot = pq.Int64Value(int64(x))
			return 0, true
		}
	case flatTimestampNano:
		if x, ok := rec.Get(pos).(iceberg.TimestampNano); ok {
			*slot = pq.Int64Value(int64(x))
			return 0, true
		}
	}
	return 0, false
}

// observe hands the waiting values of the columns the collector took.
func (b *columnBatch) observe(collector *colmetrics.Collector) {
	for i := range b.fields {
		if f := &b.fields[i]; f.observed {
			collector.ObserveValues(f.id, b.values[f.node.col])
		}
	}
}

// rowsPerCall is how many rows go to a column writer per call, as in
// parquet-go's WriteRows: a column flushes a page only between calls, so
// this bounds how far a page overshoots its size, and it keeps the pages
// where the row API would have cut them.
const rowsPerCall = 64

// writeTo writes the waiting rows to the column writers of the current row
// group: each column gets its values in slices of rowsPerCall rows, the
// calls and so the pages being the same whether the columns are written one
// after the other or concurrently (forEachColumn). Of the columns that
// fail, the first in column order gives the error.
func (b *columnBatch) writeTo(columns []*pq.ColumnWriter) error {
	if len(columns) != len(b.values) {
		return fmt.Errorf("writer has %d columns, the batch %d", len(columns), len(b.values))
	}
	if b.rows == 0 {
		return nil
	}
	if b.groupBytes == nil {
		b.groupBytes = make([]int64, len(b.values))
	}
	if b.lastBytes == nil {
		b.lastBytes = make([]int64, len(b.values))
	}
	workers := columnWorkers(len(b.values), b.bytes)
	return forEachColumn(len(b.values), workers, b.byWeight, b.columnName, func(c int) error {
		if err := b.writeColumn(columns[c], c); err != nil {
			return fmt.Errorf("column %s: %w", b.columnName(c), err)
		}
		return nil
	})
}

// writeColumn hands column c's waiting values to w, rowsPerCall rows per
// call, and counts their bytes towards the row group's final flush.
func (b *columnBatch) writeColumn(w *pq.ColumnWriter, c int) error {
	if columnHook != nil {
		if err := columnHook(c, false); err != nil {
			return err
		}
	}
	values, ends := b.values[c], b.rowEnds[c]
	n := b.valueBytes(c, values)
	b.groupBytes[c] += n
	b.lastBytes[c] = n
	for start := 0; start < b.rows; start += rowsPerCall {
		end := min(start+rowsPerCall, b.rows)
		lo, hi := start, end
		if ends != nil {
			lo, hi = 0, ends[end-1]
			if start > 0 {
				lo = ends[start-1]
			}
		}
		if _, err := w.WriteRowValues(values[lo:hi]); err != nil {
			return err
		}
	}
	return nil
}

// flushColumns ends the pages the columns of the row group still buffer,
// concurrently when there is enough to encode, before parquet-go's Flush
// or Close: those flush each column in turn first thing, which then finds
// nothing left, so the bytes are the same (forEachColumn).
func (b *columnBatch) flushColumns(columns []*pq.ColumnWriter) error {
	pending := b.groupBytes
	b.groupBytes = nil
	if pending == nil || len(columns) != len(pending) {
		return nil // nothing written since the last flush
	}
	var total int64
	busy := 0
	for _, n := range pending {
		if n > 0 {
			total += n
			busy++
		}
	}
	workers := columnWorkers(busy, total)
	order := func() []int { return heaviestFirst(pending) }
	return forEachColumn(len(columns), workers, order, b.columnName, func(c int) error {
		if pending[c] == 0 {
			return nil
		}
		if columnHook != nil {
			if err := columnHook(c, true); err != nil {
				return fmt.Errorf("column %s: %w", b.columnName(c), err)
			}
		}
		if err := columns[c].Flush(); err != nil {
			return fmt.Errorf("column %s: %w", b.columnName(c), err)
		}
		return nil
	})
}

// Concurrent column writes. A batch's columns are independent once their
// values are in it, and parquet-go's ColumnWriters of one row group share
// no unsynchronised mutable state while they take values and cut pages.
// Read in parquet-go v0.32.0 (line numbers of writer.go unless named):
//
//   - WriteRowValues (2310), Flush (2084), writeDataPage (2407) and
//     writePageTo (2638) touch the column's own state: its column buffer,
//     page buffer, header buffer and thrift encoder (1981-1987),
//     ColumnIndexer and dictionary (made per column, 787 and 778), bloom
//     filter bytes (1989), level histograms and geospatial accumulator (made
//     per column, 809). recordPageStats (2714) adds statistics, page index
//     entries and sizes to c.columnChunk and c.offsetIndex, which point to
//     distinct elements of the row group's slices (874-875).
//   - What they share is safe for concurrent use: the page buffer pool
//     (config.ColumnPageBuffers, 783: the BufferPool contract asks for it,
//     buffer_pool.go 23-24, and the default memoryBufferPool is a sync.Pool,
//     55-72), the writerBuffers of writeDataPage (dataPageBuffers, 1857-1860,
//     a sync.Pool: internal/memory/pool.go), the codec (compress.Codec must
//     be, compress/compress.go 18-19; zstd takes an encoder from a sync.Pool
//     per Encode, compress/zstd/zstd.go 56-74), the encodings (Plain and the
//     RLE level encodings, stateless values), the column types (read only;
//     the lab's wrappers, nodes.go and fixed_bytes.go, hold no state) and the
//     thrift encoder cache (a copy-on-write atomic.Value,
//     encoding/thrift/encode.go 34-61).
//   - No page reaches the file from here: pages go to the column's page
//     buffer (writePageTo); writeRowGroup (1490) writes the row group and
//     stays serial, called by Flush and Close only.
//   - Encryption state is per column (2008-2013; set at 1183-1188), its keys
//     and AAD parts read only (makeAAD copies, encrypt.go 235-244;
//     encryptModule uses crypto/rand, 170-195). The lab configures neither
//     encryption nor bloom filters; flushFilterPages runs in writeRowGroup,
//     serially, after the flush.
//
// The row group's final flush goes parallel by the same reading: a column's
// Flush is the first thing writeRowGroup (1525-1528) and Writer.Close
// (472-477) call for each column in turn, and with the pages already cut
// they find its buffer empty. The only state set before it there, the
// encryption ordinal (1519-1523), already holds that value (set at 1186,
// then 1507-1515 after each row group).
// During a write the batch's values are only read, and each worker writes
// only groupBytes[c] and lastBytes[c] of its own columns.

// Test hooks: maxColumnWorkers caps the goroutines (1 forces the serial
// write), parallelMinBytes is the least work that goes parallel, and
// columnHook runs before each column of a batch is written (flush false)
// and before each is flushed (flush true).
var (
	maxColumnWorkers = func() int { return runtime.GOMAXPROCS(0) }
	// Less work than this goes serially. On the lab's 2-core machine
	// (BenchmarkParallelWriteBatch) batches up to ~20 KiB gained nothing
	// or lost, ~45 KiB were even, and from ~100 KiB the parallel write took
	// 20-30% less time.
	parallelMinBytes int64 = 64 << 10
	columnHook       func(c int, flush bool) error
)

// columnWorkers is how many goroutines write columns columns carrying
// bytes bytes.
func columnWorkers(columns int, bytes int64) int {
	if columns < 2 || bytes < parallelMinBytes {
		return 1
	}
	return max(1, min(maxColumnWorkers(), columns))
}

// forEachColumn runs fn for the columns 0..n-1 on workers goroutines, the
// caller's one of them, taking the columns in the order order gives. It
// returns once every column is done. The column failing first in column
// order decides the outcome: its error is returned, or its panic is raised
// again on the caller's goroutine (where guard recovers it), naming the
// column. Every column is attempted, so the outcome does not depend on
// scheduling; serially the first failure ends the loop, with the same result.
func forEachColumn(n, workers int, order func() []int, name func(int) string, fn func(c int) error) error {
	errs := make([]error, n)
	panics := make([]any, n)
	if workers <= 1 {
		for c := range n {
			if panics[c], errs[c] = runColumn(c, fn); errs[c] != nil || panics[c] != nil {
				break
			}
		}
	} else {
		// The call waits for the columns, not for the goroutines: on a
		// busy machine a helper may start after the caller has taken every
		// column, and then it returns at once without touching them.
		queue := order()
		var next atomic.Int64
		var unfinished sync.WaitGroup
		unfinished.Add(len(queue))
		work := func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(len(queue)) {
					return
				}
				c := queue[i]
				panics[c], errs[c] = runColumn(c, fn)
				unfinished.Done()
			}
		}
		for range workers - 1 {
			go work()
		}
		work()
		unfinished.Wait()
	}
	for c := range n {
		if panics[c] != nil {
			panic(fmt.Sprintf("column %s: %v", name(c), panics[c]))
		}
		if errs[c] != nil {
			return errs[c]
		}
	}
	return nil
}

// runColumn runs fn for column c and recovers its panic.
func runColumn(c int, fn func(int) error) (panicked any, err error) {
	defer func() { panicked = recover() }()
	return nil, fn(c)
}

// heaviestFirst is the columns ordered by weight, heaviest first, ties in
// column order.
func heaviestFirst(weights []int64) []int {
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(weights[b], weights[a]) })
	return order
}

// byWeight orders the columns for the workers heaviest first, so that the
// last to finish is a light one: by the last batch's bytes, or by value
// count for the first batch.
func (b *columnBatch) byWeight() []int {
	weights := b.lastBytes
	if !slices.ContainsFunc(weights, func(n int64) bool { return n > 0 }) {
		weights = make([]int64, len(b.values))
		for c, v := range b.values {
			weights[c] = int64(len(v))
		}
	}
	return heaviestFirst(weights)
}

// columnName is leaf column c's dotted path, for errors.
func (b *columnBatch) columnName(c int) string {
	if c < len(b.names) {
		return strconv.Quote(b.names[c])
	}
	return strconv.Itoa(c)
}

// valueBytes sizes values of leaf column c for add and writeColumn: 8
// bytes each plus the bytes of byte arrays.
func (b *columnBatch) valueBytes(c int, values []pq.Value) int64 {
	n := int64(8 * len(values))
	if b.fixed[c] {
		return n
	}
	for i := range values {
		if k := values[i].Kind(); !values[i].IsNull() && (k == pq.ByteArray || k == pq.FixedLenByteArray) {
			n += int64(len(values[i].ByteArray()))
		}
	}
	return n
}

// reset empties the batch, keeping its memory.
func (b *columnBatch) reset() {
	for c := range b.values {
		b.values[c] = b.values[c][:0]
		if b.rowEnds[c] != nil {
			b.rowEnds[c] = b.rowEnds[c][:0]
		}
	}
	b.rows, b.bytes = 0, 0
}

// stageVector converts the VECTOR field at pos for the page writer.
func (b *columnBatch) stageVector(pos int, v any) error {
	if b.vec == nil {
		return fmt.Errorf("column at position %d is a VECTOR column without a writer", pos)
	}
	return b.vec.stage(pos, v)
}
