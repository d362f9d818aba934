//go:build !purego

#include "textflag.h"

// func bssPrefetch(p unsafe.Pointer, stride, streams, length int)
//
// PREFETCHT0 of every cache line of streams stretches of length bytes,
// p + j*stride for j < streams. A prefetch never faults, so the stretches
// need not be mapped.
TEXT ·bssPrefetch(SB), NOSPLIT, $0-32
	MOVQ  p+0(FP), SI
	MOVQ  stride+8(FP), R8
	MOVQ  streams+16(FP), CX
	MOVQ  length+24(FP), DX
	TESTQ CX, CX
	JZ    donePF
	TESTQ DX, DX
	JZ    donePF

streamPF:
	MOVQ SI, AX
	LEAQ -1(SI)(DX*1), BX // last byte of the stretch
	ANDQ $-64, AX

linePF:
	PREFETCHT0 (AX)
	ADDQ       $64, AX
	CMPQ       AX, BX
	JLE        linePF
	ADDQ       R8, SI
	DECQ       CX
	JNZ        streamPF

donePF:
	RET
