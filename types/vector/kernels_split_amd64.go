//go:build !purego

package vector

import "unsafe"

//go:noescape
func splitDotFMA(acc, src, q unsafe.Pointer, n, pairs, blocks, pf int)

//go:noescape
func splitL2FMA(acc, src, q unsafe.Pointer, n, pairs, blocks, pf int)

//go:noescape
func splitDotNormFMA(acc, src, q unsafe.Pointer, n, pairs, blocks, pf int)

//go:noescape
func splitFold(acc, out unsafe.Pointer, blocks, blockStride int)

// splitFoldBlocks folds blocks blocks of accumulators, blockStride floats
// apart from acc on, into 32 sums a block at out, in row order.
func splitFoldBlocks(acc, out []float32, blocks, blockStride int) {
	splitFold(unsafe.Pointer(unsafe.SliceData(acc)), unsafe.Pointer(unsafe.SliceData(out)), blocks, 4*blockStride)
}

// splitAdd runs the metric's split kernel (kernels_split_amd64.s) for
// pairs consecutive pairs of elements of one stripe over blocks blocks of
// 32 rows: acc is the first pair's lane pair in the first block, src its
// first plane at the first row, q its query elements, n the planes' stride
// and pf the prefetch offset, all in bytes where not in floats.
func splitAdd(metric Metric, acc []float32, src []byte, q []float32, n, pairs, blocks, pf int) {
	a, s, qp := unsafe.Pointer(unsafe.SliceData(acc)), unsafe.Pointer(unsafe.SliceData(src)), unsafe.Pointer(unsafe.SliceData(q))
	switch metric {
	case MetricDot:
		splitDotFMA(a, s, qp, n, pairs, blocks, pf)
	case MetricL2:
		splitL2FMA(a, s, qp, n, pairs, blocks, pf)
	case MetricCosine:
		splitDotNormFMA(a, s, qp, n, pairs, blocks, pf)
	}
}
