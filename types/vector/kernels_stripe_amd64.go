//go:build !purego

package vector

import "unsafe"

//go:noescape
func stripeDotFMA(acc, planes, q unsafe.Pointer, quads, stride int)

//go:noescape
func stripeL2FMA(acc, planes, q unsafe.Pointer, quads, stride int)

//go:noescape
func stripeDotNormFMA(acc, planes, q unsafe.Pointer, quads, stride int)

// haveStripeKernels: the stripe kernels mirror the FMA kernels, so they
// apply exactly where those score (dotSIMD and its siblings).
var haveStripeKernels = haveFMA

// stripeAdd runs the metric's stripe kernel over quads quads of rows;
// stride is the planes' stride in float32s.
func stripeAdd(metric Metric, acc, planes, q []float32, quads, stride int) {
	a, p, qp := unsafe.Pointer(unsafe.SliceData(acc)), unsafe.Pointer(unsafe.SliceData(planes)), unsafe.Pointer(unsafe.SliceData(q))
	switch metric {
	case MetricDot:
		stripeDotFMA(a, p, qp, quads, 4*stride)
	case MetricL2:
		stripeL2FMA(a, p, qp, quads, 4*stride)
	case MetricCosine:
		stripeDotNormFMA(a, p, qp, quads, 4*stride)
	}
}
