//go:build !amd64 || purego

package vector

func splitAdd(metric Metric, acc []float32, src []byte, q []float32, n, pairs, blocks, pf int) {
	panic("vector: split kernels are not available")
}

func splitFoldBlocks(acc, out []float32, blocks, blockStride int) {
	panic("vector: split kernels are not available")
}
