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
