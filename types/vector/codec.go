package vector

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"unsafe"
)

// hostLittleEndian decides whether float32 bytes can be reinterpreted in
// place: the file layout is little-endian, so only such hosts can alias it.
var hostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Float32View reinterprets little-endian float32 bytes as a []float32 without
// copying. It reports false, and returns nil, when that is not possible: the
// length is not a multiple of 4, the data is not 4-byte aligned, or the host
// is big-endian. The view aliases b: writes through either are visible in
// both, and b must stay alive and unmodified while the view is used.
func Float32View(b []byte) ([]float32, bool) {
	if len(b)%4 != 0 || !hostLittleEndian {
		return nil, false
	}
	if len(b) == 0 {
		return []float32{}, true
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%unsafe.Alignof(float32(0)) != 0 {
		return nil, false
	}
	return unsafe.Slice((*float32)(p), len(b)/4), true
}

// Float32s returns the float32 elements of little-endian float32 bytes,
// aliasing b when Float32View can and copying otherwise. Callers that must not
// alias b should use DecodeAppend instead.
func Float32s(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("vector: %d bytes is not a multiple of the float32 width 4", len(b))
	}
	if v, ok := Float32View(b); ok {
		return v, nil
	}
	return Float32.DecodeAppend(make([]float32, 0, len(b)/4), b)
}

// EncodeAppend appends the little-endian encoding of src, converted to t, to
// dst. Conversion to float16 and bfloat16 rounds to nearest, ties to even.
// Conversion to int8 rounds to nearest, ties to even, and fails for NaN, ±Inf
// and values outside [-128, 127] after rounding, naming the element index:
// quantization that clips would give a silently wrong value.
func (t ElementType) EncodeAppend(dst []byte, src []float32) ([]byte, error) {
	w := t.Width()
	if w == 0 {
		return dst, fmt.Errorf("vector: cannot encode invalid element type %v", t)
	}
	start := len(dst)
	dst = growBytes(dst, len(src)*w)
	out := dst[start:]
	switch t {
	case Float32:
		for i, v := range src {
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
		}
	case Float64:
		for i, v := range src {
			binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(float64(v)))
		}
	case Float16:
		for i, v := range src {
			binary.LittleEndian.PutUint16(out[2*i:], uint16(Float16FromFloat32(v)))
		}
	case BFloat16:
		for i, v := range src {
			binary.LittleEndian.PutUint16(out[2*i:], uint16(BFloat16FromFloat32(v)))
		}
	case Int8:
		for i, v := range src {
			q, err := Int8FromFloat32(v)
			if err != nil {
				return dst[:start], fmt.Errorf("vector: element %d: %w", i, err)
			}
			out[i] = byte(q)
		}
	}
	return dst, nil
}

// DecodeAppend appends the elements encoded in src, converted to float32, to
// dst. The length of src must be a multiple of the width. Float64 elements are
// rounded to the nearest float32; every other type converts exactly.
func (t ElementType) DecodeAppend(dst []float32, src []byte) ([]float32, error) {
	w := t.Width()
	if w == 0 {
		return dst, fmt.Errorf("vector: cannot decode invalid element type %v", t)
	}
	if len(src)%w != 0 {
		return dst, fmt.Errorf("vector: %d bytes is not a multiple of the %v width %d", len(src), t, w)
	}
	n := len(src) / w
	start := len(dst)
	dst = growFloat32(dst, n)
	out := dst[start:]
	switch t {
	case Float32:
		if hostLittleEndian && n > 0 {
			// The file's byte order is the host's: one memmove.
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 4*n), src)
			break
		}
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
	case Float64:
		for i := range out {
			out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(src[8*i:])))
		}
	case Float16:
		for i := range out {
			out[i] = Float16Bits(binary.LittleEndian.Uint16(src[2*i:])).Float32()
		}
	case BFloat16:
		for i := range out {
			out[i] = BFloat16Bits(binary.LittleEndian.Uint16(src[2*i:])).Float32()
		}
	case Int8:
		for i := range out {
			out[i] = float32(int8(src[i]))
		}
	}
	return dst, nil
}

// DecodeVector decodes exactly one vector of dim elements: the value of one
// FIXED_LEN_BYTE_ARRAY cell, which must be dim × width bytes.
func (t ElementType) DecodeVector(dst []float32, dim int, src []byte) ([]float32, error) {
	if err := t.checkLen(dim, src, false); err != nil {
		return dst, err
	}
	return t.DecodeAppend(dst, src)
}

// DecodeVectors decodes a run of consecutive vectors of dim elements each;
// the length of src must be a multiple of dim × width.
func (t ElementType) DecodeVectors(dst []float32, dim int, src []byte) ([]float32, error) {
	if err := t.checkLen(dim, src, true); err != nil {
		return dst, err
	}
	return t.DecodeAppend(dst, src)
}

// DecodeBlock turns the bytes of consecutive vectors, firstRow first, into a
// Block for the searches. Float32 bytes are aliased when Float32View allows
// (the zero-copy path for a Parquet page), so raw must then stay unmodified
// until the search is done with the block; everything else is decoded into a
// new slice.
func (t ElementType) DecodeBlock(firstRow int64, dim int, raw []byte) (Block, error) {
	if err := t.checkLen(dim, raw, true); err != nil {
		return Block{}, fmt.Errorf("block at row %d: %w", firstRow, err)
	}
	if t == Float32 {
		if v, ok := Float32View(raw); ok {
			return Block{FirstRow: firstRow, Vectors: v}, nil
		}
	}
	v, err := t.DecodeAppend(make([]float32, 0, len(raw)/t.Width()), raw)
	if err != nil {
		return Block{}, fmt.Errorf("block at row %d: %w", firstRow, err)
	}
	return Block{FirstRow: firstRow, Vectors: v}, nil
}

// VectorBytes is the size of one encoded vector, dim × width.
func (t ElementType) VectorBytes(dim int) int { return dim * t.Width() }

func (t ElementType) checkLen(dim int, src []byte, many bool) error {
	if !t.Valid() {
		return fmt.Errorf("vector: invalid element type %v", t)
	}
	if err := CheckDim(dim); err != nil {
		return err
	}
	want := t.VectorBytes(dim)
	if many {
		if len(src)%want != 0 {
			return fmt.Errorf("vector: %d bytes is not a multiple of dim %d × %v width %d = %d", len(src), dim, t, t.Width(), want)
		}
		return nil
	}
	if len(src) != want {
		return fmt.Errorf("vector: %d bytes, want dim %d × %v width %d = %d", len(src), dim, t, t.Width(), want)
	}
	return nil
}

// CheckDim reports an error for a dimension below 1: a VECTOR column always
// has at least one element per value.
func CheckDim(dim int) error {
	if dim < 1 {
		return fmt.Errorf("vector: dimension %d, want ≥ 1", dim)
	}
	return nil
}

// Int8FromFloat32 rounds f to the nearest integer, ties to even, and fails
// for NaN, ±Inf and results outside [-128, 127].
func Int8FromFloat32(f float32) (int8, error) {
	r := math.RoundToEven(float64(f))
	if math.IsNaN(r) || r < math.MinInt8 || r > math.MaxInt8 {
		return 0, fmt.Errorf("value %v does not fit int8", f)
	}
	return int8(r), nil
}

// Float16sFromFloat32 converts src into dst, which must be at least as long.
func Float16sFromFloat32(dst []Float16Bits, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = Float16FromFloat32(v)
	}
}

// Float16sToFloat32 converts src into dst, which must be at least as long.
func Float16sToFloat32(dst []float32, src []Float16Bits) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = v.Float32()
	}
}

// BFloat16sFromFloat32 converts src into dst, which must be at least as long.
func BFloat16sFromFloat32(dst []BFloat16Bits, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = BFloat16FromFloat32(v)
	}
}

// BFloat16sToFloat32 converts src into dst, which must be at least as long.
func BFloat16sToFloat32(dst []float32, src []BFloat16Bits) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = v.Float32()
	}
}

// Int8sFromFloat32 quantizes src into dst as Int8FromFloat32 does, failing
// at the first element that does not fit and naming its index.
func Int8sFromFloat32(dst []int8, src []float32) error {
	dst = dst[:len(src)]
	for i, v := range src {
		q, err := Int8FromFloat32(v)
		if err != nil {
			return fmt.Errorf("vector: element %d: %w", i, err)
		}
		dst[i] = q
	}
	return nil
}

// Int8sToFloat32 converts src into dst, which must be at least as long.
func Int8sToFloat32(dst []float32, src []int8) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = float32(v)
	}
}

// Float64sToFloat32 rounds src into dst, which must be at least as long.
func Float64sToFloat32(dst []float32, src []float64) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = float32(v)
	}
}

// Float32sToFloat64 widens src into dst exactly; dst must be at least as long.
func Float32sToFloat64(dst []float64, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = float64(v)
	}
}

func growBytes(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

func growFloat32(b []float32, n int) []float32 {
	if cap(b)-len(b) < n {
		nb := make([]float32, len(b), len(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

// unalignedLoadsOK is true on the architectures whose ordinary loads accept
// any address (at no cost on current cores), where a page's float bytes can
// be viewed in place wherever the page header left them.
const unalignedLoadsOK = runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64" || runtime.GOARCH == "386"

// Float32ViewUnaligned is Float32View for page bytes read from a file: on
// architectures with free unaligned loads it also views bytes that are not
// 4-byte aligned (the Go runtime allows such pointers to pointer-free types).
// Such views are only scored by the lab's own kernels, which load unaligned;
// anything handing them to gonum's assembly copies them to aligned buffers
// first (see the scorer's tiles).
func Float32ViewUnaligned(b []byte) ([]float32, bool) {
	if v, ok := Float32View(b); ok || !unalignedLoadsOK || !hostLittleEndian || len(b)%4 != 0 {
		return v, ok
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4), true
}
