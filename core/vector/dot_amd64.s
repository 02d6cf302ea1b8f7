#include "textflag.h"

// func dotAVX2(a, b []float32) float32
// Requires len(b) >= len(a); sums over len(a) elements with four AVX2 FMA
// accumulators.
TEXT ·dotAVX2(SB), NOSPLIT, $0-52
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

loop32:
	CMPQ CX, $32
	JL   loop8
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  loop32

loop8:
	CMPQ CX, $8
	JL   reduce
	VMOVUPS (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  loop8

reduce:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0

tail:
	CMPQ CX, $0
	JE   done
	VMOVSS (SI), X1
	VFMADD231SS (DI), X1, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP  tail

done:
	VZEROUPPER
	MOVSS X0, ret+48(FP)
	RET

// func dotI8AVX2(q []int16, c []int8) int32
// Requires len(c) >= len(q); sums q_i*c_i over len(q) elements: the int8s
// are widened to int16 (VPMOVSXBW), multiplied and summed in pairs into
// int32s (VPMADDWD), in two accumulators of eight lanes.
TEXT ·dotI8AVX2(SB), NOSPLIT, $0-52
	MOVQ q_base+0(FP), SI
	MOVQ q_len+8(FP), CX
	MOVQ c_base+24(FP), DI
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

i8loop32:
	CMPQ CX, $32
	JL   i8loop16
	VPMOVSXBW (DI), Y2
	VPMOVSXBW 16(DI), Y3
	VPMADDWD (SI), Y2, Y2
	VPMADDWD 32(SI), Y3, Y3
	VPADDD Y2, Y0, Y0
	VPADDD Y3, Y1, Y1
	ADDQ $32, DI
	ADDQ $64, SI
	SUBQ $32, CX
	JMP  i8loop32

i8loop16:
	CMPQ CX, $16
	JL   i8reduce
	VPMOVSXBW (DI), Y2
	VPMADDWD (SI), Y2, Y2
	VPADDD Y2, Y0, Y0
	ADDQ $16, DI
	ADDQ $32, SI
	SUBQ $16, CX

i8reduce:
	VPADDD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, AX
	VZEROUPPER

i8tail:
	CMPQ CX, $0
	JE   i8done
	MOVWLSX (SI), BX
	MOVBLSX (DI), DX
	IMULL DX, BX
	ADDL BX, AX
	ADDQ $2, SI
	INCQ DI
	DECQ CX
	JMP  i8tail

i8done:
	MOVL AX, ret+48(FP)
	RET

// func dotsI8AVX2(q []int16, c []int8, stride int, out []int32)
// Requires len(q) a positive multiple of 16, len(out) a positive multiple
// of 8 and len(c) >= (len(out)-1)*stride + len(q); sets out[r] to the sum
// of q_i*c[r*stride+i] over len(q) elements. Eight codes are scored at a
// time, one accumulator each, so that every 16 elements of the query are
// loaded once for the eight of them; the eight sums are then reduced
// together (VPHADDD, VPERM2I128) and stored with one write. Each step of
// 16 elements also prefetches 128 bytes (what a step reads) 4 KiB ahead
// of the pass, two passes at 256 dimensions: for codes that come from
// memory rather than the caches (100,000 codes of 256 dimensions are
// 25 MB) the hardware prefetcher alone leaves the kernel waiting, at
// about 12 ns a code instead of 8.
TEXT ·dotsI8AVX2(SB), NOSPLIT, $0-80
	MOVQ q_base+0(FP), SI
	MOVQ q_len+8(FP), CX
	MOVQ c_base+24(FP), DI
	MOVQ stride+48(FP), BX
	MOVQ out_base+56(FP), R11
	MOVQ out_len+64(FP), DX
	LEAQ (BX)(BX*2), R9 // 3*stride
	MOVQ BX, R8
	SHLQ $3, R8         // 8*stride

rows8:
	MOVQ DI, R10         // codes 0 to 3
	LEAQ (DI)(BX*4), R12 // codes 4 to 7
	LEAQ 4096(DI), R13   // prefetch address
	XORQ AX, AX          // elements done
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7

cols16:
	PREFETCHT0 (R13)
	PREFETCHT0 64(R13)
	VMOVDQU (SI)(AX*2), Y8
	VPMOVSXBW (R10), Y9
	VPMOVSXBW (R10)(BX*1), Y10
	VPMOVSXBW (R10)(BX*2), Y11
	VPMOVSXBW (R10)(R9*1), Y12
	VPMADDWD Y8, Y9, Y9
	VPMADDWD Y8, Y10, Y10
	VPMADDWD Y8, Y11, Y11
	VPMADDWD Y8, Y12, Y12
	VPADDD Y9, Y0, Y0
	VPADDD Y10, Y1, Y1
	VPADDD Y11, Y2, Y2
	VPADDD Y12, Y3, Y3
	VPMOVSXBW (R12), Y9
	VPMOVSXBW (R12)(BX*1), Y10
	VPMOVSXBW (R12)(BX*2), Y11
	VPMOVSXBW (R12)(R9*1), Y12
	VPMADDWD Y8, Y9, Y9
	VPMADDWD Y8, Y10, Y10
	VPMADDWD Y8, Y11, Y11
	VPMADDWD Y8, Y12, Y12
	VPADDD Y9, Y4, Y4
	VPADDD Y10, Y5, Y5
	VPADDD Y11, Y6, Y6
	VPADDD Y12, Y7, Y7
	ADDQ $16, R10
	ADDQ $16, R12
	ADDQ $128, R13
	ADDQ $16, AX
	CMPQ AX, CX
	JNE  cols16

	// Y0 to Y7 hold eight partial sums each. Within each 128-bit lane,
	// two rounds of pairwise sums leave the four partial sums of codes 0
	// to 3 in Y0 and of codes 4 to 7 in Y4; adding the lanes finishes.
	VPHADDD Y1, Y0, Y0
	VPHADDD Y3, Y2, Y2
	VPHADDD Y2, Y0, Y0
	VPHADDD Y5, Y4, Y4
	VPHADDD Y7, Y6, Y6
	VPHADDD Y6, Y4, Y4
	VPERM2I128 $0x20, Y4, Y0, Y1
	VPERM2I128 $0x31, Y4, Y0, Y2
	VPADDD Y2, Y1, Y1
	VMOVDQU Y1, (R11)
	ADDQ $32, R11
	ADDQ R8, DI
	SUBQ $8, DX
	JNZ  rows8

	VZEROUPPER
	RET

// func accI8AVX2(acc []int32, c []int8, q int32)
// Requires len(c) >= len(acc); adds q*c[r] to acc[r], sixteen elements
// per pass, the rest one at a time.
TEXT ·accI8AVX2(SB), NOSPLIT, $0-52
	MOVQ         acc_base+0(FP), DI
	MOVQ         acc_len+8(FP), CX
	MOVQ         c_base+24(FP), SI
	MOVL         q+48(FP), BX
	VMOVD        BX, X0
	VPBROADCASTD X0, Y0

acc16:
	CMPQ      CX, $16
	JL        acc8
	VPMOVSXBD (SI), Y1
	VPMOVSXBD 8(SI), Y2
	VPMULLD   Y0, Y1, Y1
	VPMULLD   Y0, Y2, Y2
	VPADDD    (DI), Y1, Y1
	VPADDD    32(DI), Y2, Y2
	VMOVDQU   Y1, (DI)
	VMOVDQU   Y2, 32(DI)
	ADDQ      $16, SI
	ADDQ      $64, DI
	SUBQ      $16, CX
	JMP       acc16

acc8:
	CMPQ      CX, $8
	JL        acc1
	VPMOVSXBD (SI), Y1
	VPMULLD   Y0, Y1, Y1
	VPADDD    (DI), Y1, Y1
	VMOVDQU   Y1, (DI)
	ADDQ      $8, SI
	ADDQ      $32, DI
	SUBQ      $8, CX

acc1:
	CMPQ    CX, $0
	JE      accdone
	MOVBLSX (SI), AX
	IMULL   BX, AX
	ADDL    AX, (DI)
	INCQ    SI
	ADDQ    $4, DI
	DECQ    CX
	JMP     acc1

accdone:
	VZEROUPPER
	RET
