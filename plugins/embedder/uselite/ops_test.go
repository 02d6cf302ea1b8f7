package uselite

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func ints(shape []int, v ...int64) *tensor     { return intTensor(shape, v) }
func floats(shape []int, v ...float32) *tensor { return &tensor{dt: dtFloat, shape: shape, f: v} }
func vec(v ...int64) *tensor                   { return ints([]int{len(v)}, v...) }
func scalar(v int64) *tensor                   { return ints([]int{}, v) }

func attrs(kv ...any) *node {
	n := &node{attrs: map[string]attr{}}
	for k := 0; k < len(kv); k += 2 {
		switch v := kv[k+1].(type) {
		case int:
			n.attrs[kv[k].(string)] = attr{i: int64(v)}
		case bool:
			n.attrs[kv[k].(string)] = attr{b: v}
		case []int64:
			n.attrs[kv[k].(string)] = attr{ints: v}
		case dtype:
			n.attrs[kv[k].(string)] = attr{typ: v}
		}
	}
	return n
}

var tensorCmp = cmp.Options{cmp.AllowUnexported(tensor{}), cmpopts.EquateEmpty()}

func TestOps(t *testing.T) {
	m23 := ints([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	for _, tc := range []struct {
		name string
		op   string
		n    *node
		in   []*tensor
		want []*tensor
	}{
		{"broadcast add", "Add", attrs(), []*tensor{floats([]int{2, 1}, 1, 2), floats([]int{3}, 10, 20, 30)},
			[]*tensor{floats([]int{2, 3}, 11, 21, 31, 12, 22, 32)}},
		{"row broadcast", "Sub", attrs(), []*tensor{m23, ints([]int{2, 1}, 1, 4)}, []*tensor{ints([]int{2, 3}, 0, 1, 2, 0, 1, 2)}},
		{"trailing broadcast", "Maximum", attrs(), []*tensor{m23, vec(3, 0, 5)}, []*tensor{ints([]int{2, 3}, 3, 2, 5, 4, 5, 6)}},
		{"scalar mul", "Mul", attrs(), []*tensor{m23, scalar(2)}, []*tensor{ints([]int{2, 3}, 2, 4, 6, 8, 10, 12)}},
		{"less", "Less", attrs(), []*tensor{vec(1, 5, 3), scalar(3)},
			[]*tensor{{dt: dtBool, shape: []int{3}, b: []bool{true, false, false}}}},
		{"column with masks", "StridedSlice", attrs("begin_mask", 1, "end_mask", 1, "shrink_axis_mask", 2),
			[]*tensor{m23, vec(0, 1), vec(0, 2), vec(1, 1)}, []*tensor{vec(2, 5)}},
		{"tail of a vector", "StridedSlice", attrs("end_mask", 1), []*tensor{vec(7, 8, 9), vec(1), vec(0), vec(1)},
			[]*tensor{vec(8, 9)}},
		{"reverse", "StridedSlice", attrs("begin_mask", 1, "end_mask", 1), []*tensor{vec(7, 8, 9), vec(0), vec(0), vec(-1)},
			[]*tensor{vec(9, 8, 7)}},
		{"scalar from a shape", "StridedSlice", attrs("shrink_axis_mask", 1), []*tensor{vec(4, 5), vec(1), vec(2), vec(1)},
			[]*tensor{ints([]int{}, 5)}},
		{"transpose", "Transpose", attrs(), []*tensor{m23, vec(1, 0)}, []*tensor{ints([]int{3, 2}, 1, 4, 2, 5, 3, 6)}},
		{"slice", "Slice", attrs(), []*tensor{m23, vec(0, 1), vec(-1, 2)}, []*tensor{ints([]int{2, 2}, 2, 3, 5, 6)}},
		{"where", "Where", attrs(), []*tensor{{dt: dtBool, shape: []int{2, 2}, b: []bool{false, true, true, false}}},
			[]*tensor{ints([]int{2, 2}, 0, 1, 1, 0)}},
		{"sparse to dense", "SparseToDense", attrs(), []*tensor{ints([]int{2, 2}, 0, 1, 1, 0), vec(2, 2), vec(7, 8), scalar(-1)},
			[]*tensor{ints([]int{2, 2}, -1, 7, 8, -1)}},
		{"scatter", "ScatterNd", attrs(), []*tensor{ints([]int{2, 1}, 1, 1), floats([]int{2, 2}, 1, 2, 3, 4), vec(2, 2)},
			[]*tensor{floats([]int{2, 2}, 0, 0, 4, 6)}},
		{"gather nd", "GatherNd", attrs(), []*tensor{m23, ints([]int{2, 2}, 1, 2, 0, 0)}, []*tensor{vec(6, 1)}},
		{"gather rows", "GatherV2", attrs(), []*tensor{m23, vec(1, 1, 0), scalar(0)},
			[]*tensor{ints([]int{3, 3}, 4, 5, 6, 4, 5, 6, 1, 2, 3)}},
		{"sum keep dims", "Sum", attrs("keep_dims", true), []*tensor{m23, vec(-1)}, []*tensor{ints([]int{2, 1}, 6, 15)}},
		{"max of columns", "Max", attrs(), []*tensor{m23, scalar(0)}, []*tensor{vec(4, 5, 6)}},
		{"prod", "Prod", attrs(), []*tensor{vec(2, 3, 4), vec(0)}, []*tensor{ints([]int{}, 24)}},
		{"mean", "Mean", attrs(), []*tensor{floats([]int{2, 2}, 1, 2, 3, 5), vec(1)}, []*tensor{floats([]int{2}, 1.5, 4)}},
		{"concat", "ConcatV2", attrs(), []*tensor{m23, ints([]int{2, 1}, 0, 0), scalar(1)},
			[]*tensor{ints([]int{2, 4}, 1, 2, 3, 0, 4, 5, 6, 0)}},
		{"pack", "Pack", attrs("axis", 0), []*tensor{scalar(3), scalar(4)}, []*tensor{vec(3, 4)}},
		{"split", "SplitV", attrs(), []*tensor{m23, vec(1, -1), scalar(1)},
			[]*tensor{ints([]int{2, 1}, 1, 4), ints([]int{2, 2}, 2, 3, 5, 6)}},
		{"range", "Range", attrs(), []*tensor{scalar(0), scalar(4), scalar(1)}, []*tensor{vec(0, 1, 2, 3)}},
		{"reshape", "Reshape", attrs(), []*tensor{m23, vec(-1)}, []*tensor{vec(1, 2, 3, 4, 5, 6)}},
		{"expand dims", "ExpandDims", attrs(), []*tensor{vec(1, 2), scalar(-1)}, []*tensor{ints([]int{2, 1}, 1, 2)}},
		{"squeeze", "Squeeze", attrs("squeeze_dims", []int64{0}), []*tensor{ints([]int{1, 2, 1}, 1, 2)},
			[]*tensor{ints([]int{2, 1}, 1, 2)}},
		{"cast", "Cast", attrs("DstT", dtFloat), []*tensor{{dt: dtBool, shape: []int{2}, b: []bool{true, false}}},
			[]*tensor{floats([]int{2}, 1, 0)}},
		{"matmul", "MatMul", attrs("transpose_b", true), []*tensor{floats([]int{1, 2}, 1, 2), floats([]int{2, 2}, 1, 2, 3, 4)},
			[]*tensor{floats([]int{1, 2}, 5, 11)}},
		{"batch matmul", "BatchMatMul", attrs("adj_y", true),
			[]*tensor{floats([]int{2, 1, 2}, 1, 2, 3, 4), floats([]int{2, 1, 2}, 1, 1, 2, 0)},
			[]*tensor{floats([]int{2, 1, 1}, 3, 6)}},
		{"1×1 convolution", "Conv2D", attrs("strides", []int64{1, 1, 1, 1}),
			[]*tensor{floats([]int{1, 2, 1, 2}, 1, 2, 3, 4), floats([]int{1, 1, 2, 1}, 10, 1)},
			[]*tensor{floats([]int{1, 2, 1, 1}, 12, 34)}},
		{"bias", "BiasAdd", attrs(), []*tensor{floats([]int{2, 2}, 1, 2, 3, 4), floats([]int{2}, 10, 20)},
			[]*tensor{floats([]int{2, 2}, 11, 22, 13, 24)}},
		{"softmax", "Softmax", attrs(), []*tensor{floats([]int{1, 2}, 0, -1e9)}, []*tensor{floats([]int{1, 2}, 1, 0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ops[tc.op].run(tc.n, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, tensorCmp); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.op, diff)
			}
		})
	}
}

func TestOpErrors(t *testing.T) {
	m23 := ints([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	for _, tc := range []struct {
		name, op string
		n        *node
		in       []*tensor
	}{
		{"bad broadcast", "Add", attrs(), []*tensor{m23, vec(1, 2)}},
		{"mixed types", "Add", attrs(), []*tensor{m23, floats([]int{}, 1)}},
		{"bad reshape", "Reshape", attrs(), []*tensor{m23, vec(4, -1)}},
		{"gather out of range", "GatherV2", attrs(), []*tensor{m23, vec(2), scalar(0)}},
		{"matmul mismatch", "MatMul", attrs(), []*tensor{floats([]int{1, 2}, 1, 2), floats([]int{3, 1}, 1, 2, 3)}},
		{"3×3 kernel", "Conv2D", attrs(), []*tensor{floats([]int{1, 1, 1, 1}, 1), floats([]int{3, 3, 1, 1}, make([]float32, 9)...)}},
		{"ellipsis", "StridedSlice", attrs("ellipsis_mask", 1), []*tensor{vec(1), vec(0), vec(1), vec(1)}},
		{"concat of nothing", "ConcatV2", attrs(), []*tensor{scalar(0)}},
	} {
		if _, err := ops[tc.op].run(tc.n, tc.in); err == nil {
			t.Errorf("%s: %s succeeded", tc.name, tc.op)
		}
	}
}

func TestMatmulShapes(t *testing.T) {
	// Sizes around the 8-row and 512-column blocks, against a plain loop.
	for _, s := range [][3]int{{1, 1, 1}, {3, 7, 5}, {2, 8, 3}, {5, 17, 513}, {11, 256, 768}} {
		m, k, n := s[0], s[1], s[2]
		a, b := make([]float32, m*k), make([]float32, k*n)
		for i := range a {
			a[i] = float32(i%7) - 3
		}
		for i := range b {
			b[i] = float32(i%5) - 2
		}
		got := make([]float32, m*n)
		for i := range got {
			got[i] = 99 // matmul must overwrite
		}
		matmul(got, a, b, m, k, n)
		for i := range m {
			for j := range n {
				var want float32
				for p := range k {
					want += a[i*k+p] * b[p*n+j]
				}
				if got[i*n+j] != want {
					t.Fatalf("%v: c[%d,%d] = %v, want %v", s, i, j, got[i*n+j], want)
				}
			}
		}
	}
}

func TestFloat16(t *testing.T) {
	for _, tc := range []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0}, {0x3c00, 1}, {0xc000, -2}, {0x3555, 0.33325195}, {0x0001, 5.9604645e-08},
		{0x7bff, 65504}, {0x7c00, float32(math.Inf(1))},
	} {
		if got := float16(tc.h); got != tc.want {
			t.Errorf("float16(%#04x) = %v, want %v", tc.h, got, tc.want)
		}
	}
}
