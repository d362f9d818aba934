//go:build !amd64 || purego

package vector

// haveStripeKernels is false: the single-query kernels here are the
// unrolled Go loops (dotSIMD), whose sums the stripes cannot mirror, so
// sources decode rows whole and score them (ScanScorer.Stripes is nil).
const haveStripeKernels = false

func stripeAdd(metric Metric, acc, planes, q []float32, quads, stride int) {
	panic("vector: stripe kernels are not available")
}
