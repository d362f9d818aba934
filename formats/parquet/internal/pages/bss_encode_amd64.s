//go:build !purego

#include "textflag.h"

// BYTE_STREAM_SPLIT encoding of 4-byte values with AVX2, 32 values (128
// bytes) a step. Within each 128-bit lane VPSHUFB gathers byte k of its 4
// values into dword k; VPERMD then pairs the lanes' dwords so that qword k
// of a register holds byte k of its 8 values; a 4×4 qword transpose across
// the 4 registers (unpacks, then VPERM2I128) gives each stream its 32
// bytes.

// Byte k of values 0-3 of a lane into dword k, in both lanes.
DATA bssEnc4Shuf<>+0(SB)/8, $0x0d0905010c080400
DATA bssEnc4Shuf<>+8(SB)/8, $0x0f0b07030e0a0602
DATA bssEnc4Shuf<>+16(SB)/8, $0x0d0905010c080400
DATA bssEnc4Shuf<>+24(SB)/8, $0x0f0b07030e0a0602
GLOBL bssEnc4Shuf<>(SB), RODATA|NOPTR, $32

// Dwords 0,4,1,5,2,6,3,7: lane 0's dword k beside lane 1's.
DATA bssEnc4Perm<>+0(SB)/8, $0x0000000400000000
DATA bssEnc4Perm<>+8(SB)/8, $0x0000000500000001
DATA bssEnc4Perm<>+16(SB)/8, $0x0000000600000002
DATA bssEnc4Perm<>+24(SB)/8, $0x0000000700000003
GLOBL bssEnc4Perm<>(SB), RODATA|NOPTR, $32

// func bssEncode4AVX2(dst, src unsafe.Pointer, n, blocks int)
TEXT ·bssEncode4AVX2(SB), NOSPLIT, $0-32
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    n+16(FP), R8
	MOVQ    blocks+24(FP), CX
	LEAQ    (R8)(R8*2), R9
	VMOVDQU bssEnc4Shuf<>(SB), Y14
	VMOVDQU bssEnc4Perm<>(SB), Y15

loopE4:
	VMOVDQU     (SI), Y0
	VMOVDQU     32(SI), Y1
	VMOVDQU     64(SI), Y2
	VMOVDQU     96(SI), Y3
	VPSHUFB     Y14, Y0, Y0
	VPSHUFB     Y14, Y1, Y1
	VPSHUFB     Y14, Y2, Y2
	VPSHUFB     Y14, Y3, Y3
	VPERMD      Y0, Y15, Y0          // qword k: byte k of values 0-7
	VPERMD      Y1, Y15, Y1          // values 8-15
	VPERMD      Y2, Y15, Y2          // values 16-23
	VPERMD      Y3, Y15, Y3          // values 24-31
	VPUNPCKLQDQ Y1, Y0, Y4           // streams 0 | 2 of values 0-15
	VPUNPCKHQDQ Y1, Y0, Y5           // streams 1 | 3 of values 0-15
	VPUNPCKLQDQ Y3, Y2, Y6           // streams 0 | 2 of values 16-31
	VPUNPCKHQDQ Y3, Y2, Y7           // streams 1 | 3 of values 16-31
	VPERM2I128  $0x20, Y6, Y4, Y0    // stream 0
	VPERM2I128  $0x20, Y7, Y5, Y1    // stream 1
	VPERM2I128  $0x31, Y6, Y4, Y2    // stream 2
	VPERM2I128  $0x31, Y7, Y5, Y3    // stream 3
	VMOVDQU     Y0, (DI)
	VMOVDQU     Y1, (DI)(R8*1)
	VMOVDQU     Y2, (DI)(R8*2)
	VMOVDQU     Y3, (DI)(R9*1)
	ADDQ        $128, SI
	ADDQ        $32, DI
	DECQ        CX
	JNZ         loopE4
	VZEROUPPER
	RET
