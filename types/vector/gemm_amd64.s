//go:build !purego

#include "textflag.h"

// AVX2 + FMA kernels for gemmNT: C[i][j] = Σ_l A[i][l]·B[j][l], both
// operands row-major along l (queries times rows, Q·Xᵀ).
//
// Every entry of C is summed the same way, whichever kernel computes it and
// wherever its operands sit in memory (all loads are unaligned):
//
//   - lane t (t < 8) of an 8-lane accumulator starting at +0 takes, by one
//     fused multiply-add each, the products of l = t, t+8, t+16, … in
//     increasing l; a last partial chunk of k mod 8 elements is read with a
//     mask, its missing lanes taking 0·0;
//   - the lanes are then summed as ((s0+s1)+(s2+s3)) + ((s4+s5)+(s6+s7)).
//
// So a score depends on the two vectors' values and the length alone. The
// register kernels keep 12 accumulators (one per entry of a 2×6 or 4×3 block
// of C) to cover the FMA latency of both pipes; each 8-element step loads 8
// (2×6) or 7 (4×3) vectors for 12 FMAs.
//
// Arguments: ldc, lda, ldb and k are in elements; the counts m or n are > 0
// multiples of the kernel's step; mask is nil when k is a multiple of 8,
// else a pointer to 8 int32 lanes whose first k mod 8 are -1 and the rest 0.

// HSUM3 reduces accumulators r0, r1, r2 into X(r0) lanes 0..2, in the order
// above; t is scratch. (hadd(r0,r1) then hadd with hadd(r2,r2), then the two
// 128-bit halves.)
#define HSUM3(r0, r1, r2, x0, xt, t) \
	VHADDPS      r1, r0, r0 \
	VHADDPS      r2, r2, r2 \
	VHADDPS      r2, r0, r0 \
	VEXTRACTF128 $1, r0, xt \
	VADDPS       xt, x0, x0

// HSUM4 reduces r0..r3 into lanes 0..3 of x0.
#define HSUM4(r0, r1, r2, r3, x0, xt) \
	VHADDPS      r1, r0, r0 \
	VHADDPS      r3, r2, r2 \
	VHADDPS      r2, r0, r0 \
	VEXTRACTF128 $1, r0, xt \
	VADDPS       xt, x0, x0

// HSUM2 reduces r0, r1 into lanes 0..1 of x0.
#define HSUM2(r0, r1, x0, xt) \
	VHADDPS      r1, r0, r0 \
	VHADDPS      r0, r0, r0 \
	VEXTRACTF128 $1, r0, xt \
	VADDPS       xt, x0, x0

// func gemmNT4x3(c unsafe.Pointer, ldc int, a unsafe.Pointer, lda int, b unsafe.Pointer, ldb int, n, k int, mask unsafe.Pointer)
//
// Four rows of A (SI, R9, R10, R11) against n rows of B, three at a time
// (DI, R12, R13); C row i at BX + i·ldc. Accumulator Y(3i+j) holds entry
// (i, j); Y12..Y14 hold the rows' chunk, Y15 a query's.
TEXT ·gemmNT4x3(SB), NOSPLIT, $0-72
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R8
	SHLQ $2, R8
	LEAQ (SI)(R8*1), R9
	LEAQ (SI)(R8*2), R10
	LEAQ (R9)(R8*2), R11
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R8
	SHLQ $2, R8
	LEAQ (DI)(R8*1), R12
	LEAQ (DI)(R8*2), R13
	LEAQ (R8)(R8*2), R8 // three rows of B, in bytes
	MOVQ c+0(FP), BX
	MOVQ n+48(FP), DX
	MOVQ k+56(FP), CX
	ANDQ $-8, CX
	SHLQ $2, CX         // bytes of whole 8-element chunks
	MOVQ mask+64(FP), R14

k43rows:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	XORQ   AX, AX
	CMPQ   AX, CX
	JAE    k43tail

k43body:
	VMOVUPS     (DI)(AX*1), Y12
	VMOVUPS     (R12)(AX*1), Y13
	VMOVUPS     (R13)(AX*1), Y14
	VMOVUPS     (SI)(AX*1), Y15
	VFMADD231PS Y12, Y15, Y0
	VFMADD231PS Y13, Y15, Y1
	VFMADD231PS Y14, Y15, Y2
	VMOVUPS     (R9)(AX*1), Y15
	VFMADD231PS Y12, Y15, Y3
	VFMADD231PS Y13, Y15, Y4
	VFMADD231PS Y14, Y15, Y5
	VMOVUPS     (R10)(AX*1), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VFMADD231PS Y14, Y15, Y8
	VMOVUPS     (R11)(AX*1), Y15
	VFMADD231PS Y12, Y15, Y9
	VFMADD231PS Y13, Y15, Y10
	VFMADD231PS Y14, Y15, Y11
	ADDQ        $32, AX
	CMPQ        AX, CX
	JB          k43body

k43tail:
	TESTQ R14, R14
	JZ    k43store
	// The mask is reloaded before each query's masked load, which
	// overwrites it.
	VMOVDQU     (R14), Y15
	VMASKMOVPS  (DI)(AX*1), Y15, Y12
	VMASKMOVPS  (R12)(AX*1), Y15, Y13
	VMASKMOVPS  (R13)(AX*1), Y15, Y14
	VMASKMOVPS  (SI)(AX*1), Y15, Y15
	VFMADD231PS Y12, Y15, Y0
	VFMADD231PS Y13, Y15, Y1
	VFMADD231PS Y14, Y15, Y2
	VMOVDQU     (R14), Y15
	VMASKMOVPS  (R9)(AX*1), Y15, Y15
	VFMADD231PS Y12, Y15, Y3
	VFMADD231PS Y13, Y15, Y4
	VFMADD231PS Y14, Y15, Y5
	VMOVDQU     (R14), Y15
	VMASKMOVPS  (R10)(AX*1), Y15, Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VFMADD231PS Y14, Y15, Y8
	VMOVDQU     (R14), Y15
	VMASKMOVPS  (R11)(AX*1), Y15, Y15
	VFMADD231PS Y12, Y15, Y9
	VFMADD231PS Y13, Y15, Y10
	VFMADD231PS Y14, Y15, Y11

k43store:
	MOVQ ldc+8(FP), AX
	SHLQ $2, AX
	HSUM3(Y0, Y1, Y2, X0, X12, Y12)
	VMOVSS     X0, (BX)
	VEXTRACTPS $1, X0, 4(BX)
	VEXTRACTPS $2, X0, 8(BX)
	HSUM3(Y3, Y4, Y5, X3, X12, Y12)
	VMOVSS     X3, (BX)(AX*1)
	VEXTRACTPS $1, X3, 4(BX)(AX*1)
	VEXTRACTPS $2, X3, 8(BX)(AX*1)
	HSUM3(Y6, Y7, Y8, X6, X12, Y12)
	VMOVSS     X6, (BX)(AX*2)
	VEXTRACTPS $1, X6, 4(BX)(AX*2)
	VEXTRACTPS $2, X6, 8(BX)(AX*2)
	LEAQ       (AX)(AX*2), AX
	HSUM3(Y9, Y10, Y11, X9, X12, Y12)
	VMOVSS     X9, (BX)(AX*1)
	VEXTRACTPS $1, X9, 4(BX)(AX*1)
	VEXTRACTPS $2, X9, 8(BX)(AX*1)

	ADDQ $12, BX
	ADDQ R8, DI
	ADDQ R8, R12
	ADDQ R8, R13
	SUBQ $3, DX
	JNZ  k43rows
	VZEROUPPER
	RET

// func gemmNT2x6T(c unsafe.Pointer, ldc int, a unsafe.Pointer, lda int, b unsafe.Pointer, ldb int, m, k int, mask, pf unsafe.Pointer, pfLines int)
//
// Six rows of B (DI, R10, R11, R12, R13, R8) against m rows of A, two at a
// time (SI, R9), m a multiple of 2; C rows at BX and BX + ldc. Y0..Y5 are
// entries (0, j), Y6..Y11 entries (1, j); Y12, Y13 the queries' chunk, Y14
// a row's, Y15 the mask. The six
// rows (6k floats) stay in L1 while A streams past, so a block of B read
// from memory is used by every query as soon as it arrives. After each pair
// of A rows the kernel prefetches the next pfLines cache lines from pf on
// (the caller's next group of B), so that the next call finds them in
// cache rather than stalling on memory for its first pair.
TEXT ·gemmNT2x6T(SB), NOSPLIT, $0-88
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), AX
	SHLQ $2, AX
	LEAQ (SI)(AX*1), R9
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), AX
	SHLQ $2, AX
	LEAQ (DI)(AX*1), R10
	LEAQ (DI)(AX*2), R11
	LEAQ (R10)(AX*2), R12
	LEAQ (DI)(AX*4), R13
	LEAQ (R12)(AX*2), R8
	MOVQ c+0(FP), BX
	MOVQ m+48(FP), DX
	MOVQ k+56(FP), CX
	ANDQ $-8, CX
	SHLQ $2, CX
	MOVQ mask+64(FP), R14

k26trows:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	XORQ   AX, AX
	CMPQ   AX, CX
	JAE    k26ttail

k26tbody:
	VMOVUPS     (SI)(AX*1), Y12
	VMOVUPS     (R9)(AX*1), Y13
	VMOVUPS     (DI)(AX*1), Y14
	VFMADD231PS Y14, Y12, Y0
	VFMADD231PS Y14, Y13, Y6
	VMOVUPS     (R10)(AX*1), Y14
	VFMADD231PS Y14, Y12, Y1
	VFMADD231PS Y14, Y13, Y7
	VMOVUPS     (R11)(AX*1), Y14
	VFMADD231PS Y14, Y12, Y2
	VFMADD231PS Y14, Y13, Y8
	VMOVUPS     (R12)(AX*1), Y14
	VFMADD231PS Y14, Y12, Y3
	VFMADD231PS Y14, Y13, Y9
	VMOVUPS     (R13)(AX*1), Y14
	VFMADD231PS Y14, Y12, Y4
	VFMADD231PS Y14, Y13, Y10
	VMOVUPS     (R8)(AX*1), Y14
	VFMADD231PS Y14, Y12, Y5
	VFMADD231PS Y14, Y13, Y11
	ADDQ        $32, AX
	CMPQ        AX, CX
	JB          k26tbody

k26ttail:
	TESTQ R14, R14
	JZ    k26tstore
	VMOVDQU     (R14), Y15
	VMASKMOVPS  (SI)(AX*1), Y15, Y12
	VMASKMOVPS  (R9)(AX*1), Y15, Y13
	VMASKMOVPS  (DI)(AX*1), Y15, Y14
	VFMADD231PS Y14, Y12, Y0
	VFMADD231PS Y14, Y13, Y6
	VMASKMOVPS  (R10)(AX*1), Y15, Y14
	VFMADD231PS Y14, Y12, Y1
	VFMADD231PS Y14, Y13, Y7
	VMASKMOVPS  (R11)(AX*1), Y15, Y14
	VFMADD231PS Y14, Y12, Y2
	VFMADD231PS Y14, Y13, Y8
	VMASKMOVPS  (R12)(AX*1), Y15, Y14
	VFMADD231PS Y14, Y12, Y3
	VFMADD231PS Y14, Y13, Y9
	VMASKMOVPS  (R13)(AX*1), Y15, Y14
	VFMADD231PS Y14, Y12, Y4
	VFMADD231PS Y14, Y13, Y10
	VMASKMOVPS  (R8)(AX*1), Y15, Y14
	VFMADD231PS Y14, Y12, Y5
	VFMADD231PS Y14, Y13, Y11

k26tstore:
	MOVQ ldc+8(FP), AX
	SHLQ $2, AX
	HSUM4(Y0, Y1, Y2, Y3, X0, X12)
	VMOVUPS    X0, (BX)
	HSUM2(Y4, Y5, X4, X12)
	VMOVSS     X4, 16(BX)
	VEXTRACTPS $1, X4, 20(BX)
	HSUM4(Y6, Y7, Y8, Y9, X6, X12)
	VMOVUPS    X6, (BX)(AX*1)
	HSUM2(Y10, Y11, X10, X12)
	VMOVSS     X10, 16(BX)(AX*1)
	VEXTRACTPS $1, X10, 20(BX)(AX*1)

	LEAQ (BX)(AX*2), BX // two rows of C on

	CMPQ pfLines+80(FP), $0
	JEQ  k26tnext
	MOVQ pfLines+80(FP), CX
	MOVQ pf+72(FP), AX

k26tpf:
	PREFETCHT1 (AX)
	ADDQ       $64, AX
	DECQ       CX
	JNZ        k26tpf
	MOVQ       AX, pf+72(FP)
	MOVQ       k+56(FP), CX
	ANDQ       $-8, CX
	SHLQ       $2, CX

k26tnext:
	MOVQ lda+24(FP), AX
	SHLQ $3, AX         // two rows of A, in bytes
	ADDQ AX, SI
	ADDQ AX, R9
	SUBQ $2, DX
	JNZ  k26trows
	VZEROUPPER
	RET

// func gemmDot1(a, b unsafe.Pointer, k int, mask unsafe.Pointer) float32
//
// One entry, summed exactly as the register kernels sum each of theirs.
TEXT ·gemmDot1(SB), NOSPLIT, $0-36
	MOVQ   a+0(FP), SI
	MOVQ   b+8(FP), DI
	MOVQ   k+16(FP), CX
	ANDQ   $-8, CX
	SHLQ   $2, CX
	MOVQ   mask+24(FP), R14
	VXORPS Y0, Y0, Y0
	XORQ   AX, AX
	CMPQ   AX, CX
	JAE    d1tail

d1body:
	VMOVUPS     (SI)(AX*1), Y1
	VFMADD231PS (DI)(AX*1), Y1, Y0
	ADDQ        $32, AX
	CMPQ        AX, CX
	JB          d1body

d1tail:
	TESTQ R14, R14
	JZ    d1sum
	VMOVDQU     (R14), Y3
	VMASKMOVPS  (SI)(AX*1), Y3, Y1
	VMASKMOVPS  (DI)(AX*1), Y3, Y2
	VFMADD231PS Y2, Y1, Y0

d1sum:
	HSUM2(Y0, Y0, X0, X1)
	VZEROUPPER
	MOVSS X0, ret+32(FP)
	RET

// func peakFMA(iters int)
//
// iters × 24 independent 8-lane FMAs (12 accumulators, two rounds), the
// multiply-add throughput limit of a core with nothing else in the way.
TEXT ·peakFMA(SB), NOSPLIT, $0-8
	MOVQ   iters+0(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	// Y14 = 1.0 in every lane, Y15 = 1.0: the sums grow by 1 per FMA and
	// stay normal, so no input slows the units down.
	MOVL         $0x3f800000, AX
	MOVL         AX, X14
	VBROADCASTSS X14, Y14
	VMOVAPS      Y14, Y15
	TESTQ        CX, CX
	JLE          peakdone

peakloop:
	VFMADD231PS Y14, Y15, Y0
	VFMADD231PS Y14, Y15, Y1
	VFMADD231PS Y14, Y15, Y2
	VFMADD231PS Y14, Y15, Y3
	VFMADD231PS Y14, Y15, Y4
	VFMADD231PS Y14, Y15, Y5
	VFMADD231PS Y14, Y15, Y6
	VFMADD231PS Y14, Y15, Y7
	VFMADD231PS Y14, Y15, Y8
	VFMADD231PS Y14, Y15, Y9
	VFMADD231PS Y14, Y15, Y10
	VFMADD231PS Y14, Y15, Y11
	VFMADD231PS Y14, Y15, Y0
	VFMADD231PS Y14, Y15, Y1
	VFMADD231PS Y14, Y15, Y2
	VFMADD231PS Y14, Y15, Y3
	VFMADD231PS Y14, Y15, Y4
	VFMADD231PS Y14, Y15, Y5
	VFMADD231PS Y14, Y15, Y6
	VFMADD231PS Y14, Y15, Y7
	VFMADD231PS Y14, Y15, Y8
	VFMADD231PS Y14, Y15, Y9
	VFMADD231PS Y14, Y15, Y10
	VFMADD231PS Y14, Y15, Y11
	DECQ        CX
	JNZ         peakloop

peakdone:
	VZEROUPPER
	RET

// The AVX-512 kernels: the same sums as the AVX2 ones, bit for bit, at twice
// the lanes per instruction. A 512-bit accumulator holds two entries side by
// side, (i, j) in its low 256 bits and (i+1, j) in its high 256 bits, each
// an 8-lane sum exactly as above: the two rows of A sit in the two halves of
// one register (a load and an insert), the row of B is broadcast to both,
// and one FMA advances both entries. The masked tail loads zero the missing
// lanes as VMASKMOVPS does, and the lanes are summed with the AVX2 macros
// once the halves are split apart, so nothing in an entry's order changes.

// ZSPLIT6 copies six 512-bit accumulators' low halves to Y0..Y5 and their
// high halves to Y6..Y11, where the VEX macros can reach them.
#define ZSPLIT6(z0, z1, z2, z3, z4, z5, y0, y1, y2, y3, y4, y5) \
	VMOVAPS       y0, Y0 \
	VMOVAPS       y1, Y1 \
	VMOVAPS       y2, Y2 \
	VMOVAPS       y3, Y3 \
	VMOVAPS       y4, Y4 \
	VMOVAPS       y5, Y5 \
	VEXTRACTF32X8 $1, z0, Y6 \
	VEXTRACTF32X8 $1, z1, Y7 \
	VEXTRACTF32X8 $1, z2, Y8 \
	VEXTRACTF32X8 $1, z3, Y9 \
	VEXTRACTF32X8 $1, z4, Y10 \
	VEXTRACTF32X8 $1, z5, Y11

// STORE2x6 sums Y0..Y5 into C row BX and Y6..Y11 into row BX + AX, then
// moves BX two rows on.
#define STORE2x6 \
	HSUM4(Y0, Y1, Y2, Y3, X0, X12) \
	VMOVUPS    X0, (BX) \
	HSUM2(Y4, Y5, X4, X12) \
	VMOVSS     X4, 16(BX) \
	VEXTRACTPS $1, X4, 20(BX) \
	HSUM4(Y6, Y7, Y8, Y9, X6, X12) \
	VMOVUPS    X6, (BX)(AX*1) \
	HSUM2(Y10, Y11, X10, X12) \
	VMOVSS     X10, 16(BX)(AX*1) \
	VEXTRACTPS $1, X10, 20(BX)(AX*1) \
	LEAQ       (BX)(AX*2), BX

// ZERO12Z clears the twelve 512-bit accumulators Z16..Z27.
#define ZERO12Z \
	VPXORD Z16, Z16, Z16 \
	VPXORD Z17, Z17, Z17 \
	VPXORD Z18, Z18, Z18 \
	VPXORD Z19, Z19, Z19 \
	VPXORD Z20, Z20, Z20 \
	VPXORD Z21, Z21, Z21 \
	VPXORD Z22, Z22, Z22 \
	VPXORD Z23, Z23, Z23 \
	VPXORD Z24, Z24, Z24 \
	VPXORD Z25, Z25, Z25 \
	VPXORD Z26, Z26, Z26 \
	VPXORD Z27, Z27, Z27

// ZFMA2 advances entries j0 (A rows 0|1, in Z28) and j1 (A rows 2|3, in
// Z29) by the row of B in b, broadcast to both halves.
#define ZFMA2(b, j0, j1) \
	VFMADD231PS b, Z28, j0 \
	VFMADD231PS b, Z29, j1

// func gemmNT4x6Z(c unsafe.Pointer, ldc int, a unsafe.Pointer, lda int, b unsafe.Pointer, ldb int, m, k int, pf unsafe.Pointer, pfLines int)
//
// Six rows of B against m rows of A (m a multiple of 4), four at a time: A
// rows at SI, SI + R9, SI + 2·R9, SI + R10 (3·R9); C rows at BX + i·ldc.
// Z16..Z21 hold entries (0|1, j), Z22..Z27 entries (2|3, j); Z28 and Z29
// the two pairs of A rows' chunk, Z30 and Z31 rows of B broadcast. The
// pointers move along k (AX stays free for the stores). Prefetching of the
// caller's next group of B is as in gemmNT2x6T, after each four rows of A.
TEXT ·gemmNT4x6Z(SB), NOSPLIT, $0-80
	MOVQ lda+24(FP), R9
	SHLQ $2, R9
	LEAQ (R9)(R9*2), R10
	MOVQ ldb+40(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R12
	MOVQ a+16(FP), SI
	MOVQ c+0(FP), BX
	MOVQ m+48(FP), DX
	MOVQ k+56(FP), R14
	ANDQ $7, R14        // elements in the last partial chunk
	JZ   z46rows
	MOVQ R14, CX
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1        // its lanes

z46rows:
	MOVQ   b+32(FP), DI
	LEAQ   (DI)(R8*4), R13
	MOVQ   SI, R11      // these four rows of A
	ZERO12Z
	MOVQ   k+56(FP), CX
	SHRQ   $3, CX       // whole chunks
	JZ     z46tail

z46body:
	VMOVUPS         (SI), Y28
	VINSERTF32X8    $1, (SI)(R9*1), Z28, Z28
	VMOVUPS         (SI)(R9*2), Y29
	VINSERTF32X8    $1, (SI)(R10*1), Z29, Z29
	VBROADCASTF32X8 (DI), Z30
	ZFMA2(Z30, Z16, Z22)
	VBROADCASTF32X8 (DI)(R8*1), Z31
	ZFMA2(Z31, Z17, Z23)
	VBROADCASTF32X8 (DI)(R8*2), Z30
	ZFMA2(Z30, Z18, Z24)
	VBROADCASTF32X8 (DI)(R12*1), Z31
	ZFMA2(Z31, Z19, Z25)
	VBROADCASTF32X8 (R13), Z30
	ZFMA2(Z30, Z20, Z26)
	VBROADCASTF32X8 (R13)(R8*1), Z31
	ZFMA2(Z31, Z21, Z27)
	ADDQ            $32, SI
	ADDQ            $32, DI
	ADDQ            $32, R13
	DECQ            CX
	JNZ             z46body

z46tail:
	TESTQ R14, R14
	JZ    z46store
	// Masked loads (which do not fault on the lanes they leave out) and
	// register inserts: an insert or broadcast from memory would read the
	// whole 32 bytes.
	VMOVUPS.Z    (SI), K1, Y28
	VMOVUPS.Z    (SI)(R9*1), K1, Y31
	VINSERTF32X8 $1, Y31, Z28, Z28
	VMOVUPS.Z    (SI)(R9*2), K1, Y29
	VMOVUPS.Z    (SI)(R10*1), K1, Y31
	VINSERTF32X8 $1, Y31, Z29, Z29
	VMOVUPS.Z    (DI), K1, Y30
	VINSERTF32X8 $1, Y30, Z30, Z30
	ZFMA2(Z30, Z16, Z22)
	VMOVUPS.Z    (DI)(R8*1), K1, Y31
	VINSERTF32X8 $1, Y31, Z31, Z31
	ZFMA2(Z31, Z17, Z23)
	VMOVUPS.Z    (DI)(R8*2), K1, Y30
	VINSERTF32X8 $1, Y30, Z30, Z30
	ZFMA2(Z30, Z18, Z24)
	VMOVUPS.Z    (DI)(R12*1), K1, Y31
	VINSERTF32X8 $1, Y31, Z31, Z31
	ZFMA2(Z31, Z19, Z25)
	VMOVUPS.Z    (R13), K1, Y30
	VINSERTF32X8 $1, Y30, Z30, Z30
	ZFMA2(Z30, Z20, Z26)
	VMOVUPS.Z    (R13)(R8*1), K1, Y31
	VINSERTF32X8 $1, Y31, Z31, Z31
	ZFMA2(Z31, Z21, Z27)

z46store:
	MOVQ ldc+8(FP), AX
	SHLQ $2, AX
	ZSPLIT6(Z16, Z17, Z18, Z19, Z20, Z21, Y16, Y17, Y18, Y19, Y20, Y21)
	STORE2x6
	ZSPLIT6(Z22, Z23, Z24, Z25, Z26, Z27, Y22, Y23, Y24, Y25, Y26, Y27)
	STORE2x6

	CMPQ pfLines+72(FP), $0
	JEQ  z46next
	MOVQ pfLines+72(FP), CX
	MOVQ pf+64(FP), AX

z46pf:
	PREFETCHT1 (AX)
	ADDQ       $64, AX
	DECQ       CX
	JNZ        z46pf
	MOVQ       AX, pf+64(FP)

z46next:
	LEAQ (R11)(R9*4), SI // four rows of A on
	SUBQ $4, DX
	JNZ  z46rows
	VZEROUPPER
	RET

// FMA12Z is one 512-bit FMA into each of Z16..Z27.
#define FMA12Z \
	VFMADD231PS Z30, Z31, Z16 \
	VFMADD231PS Z30, Z31, Z17 \
	VFMADD231PS Z30, Z31, Z18 \
	VFMADD231PS Z30, Z31, Z19 \
	VFMADD231PS Z30, Z31, Z20 \
	VFMADD231PS Z30, Z31, Z21 \
	VFMADD231PS Z30, Z31, Z22 \
	VFMADD231PS Z30, Z31, Z23 \
	VFMADD231PS Z30, Z31, Z24 \
	VFMADD231PS Z30, Z31, Z25 \
	VFMADD231PS Z30, Z31, Z26 \
	VFMADD231PS Z30, Z31, Z27

// func peakFMAZ(iters int)
//
// peakFMA with 512-bit FMAs: iters × 24 of them into 12 accumulators.
TEXT ·peakFMAZ(SB), NOSPLIT, $0-8
	MOVQ   iters+0(FP), CX
	ZERO12Z
	MOVL         $0x3f800000, AX
	MOVL         AX, X14
	VBROADCASTSS X14, Z30
	VMOVAPS      Z30, Z31
	TESTQ        CX, CX
	JLE          peakzdone

peakzloop:
	FMA12Z
	FMA12Z
	DECQ        CX
	JNZ         peakzloop

peakzdone:
	VZEROUPPER
	RET
