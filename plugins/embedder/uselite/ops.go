package uselite

import (
	"errors"
	"fmt"
	"math"
)

// This file holds the tensor type and the TensorFlow operations that the
// USE-lite graph uses, and nothing more. Every operation allocates its
// output and never writes to its inputs, so constant tensors (the weights)
// can be shared by concurrent runs. Shape-only operations (Reshape,
// ExpandDims, Squeeze) share their input's data.

// dtype is the element type of a tensor. All integer types (int32, int64)
// are held as int64: the graph only uses integers for shapes, positions and
// token ids.
type dtype uint8

const (
	dtInvalid dtype = iota
	dtFloat
	dtInt
	dtBool
)

func (d dtype) String() string {
	switch d {
	case dtFloat:
		return "float32"
	case dtInt:
		return "int"
	case dtBool:
		return "bool"
	}
	return "invalid"
}

// tensor is a dense, row-major array. Exactly one of f, i and b is used,
// according to dt.
type tensor struct {
	dt    dtype
	shape []int
	f     []float32
	i     []int64
	b     []bool
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

func newTensor(dt dtype, shape []int) *tensor {
	t := &tensor{dt: dt, shape: shape}
	n := numel(shape)
	switch dt {
	case dtFloat:
		t.f = make([]float32, n)
	case dtInt:
		t.i = make([]int64, n)
	case dtBool:
		t.b = make([]bool, n)
	}
	return t
}

func intTensor(shape []int, v []int64) *tensor { return &tensor{dt: dtInt, shape: shape, i: v} }

func (t *tensor) size() int { return numel(t.shape) }

// reshaped returns a tensor with the same data and another shape.
func (t *tensor) reshaped(shape []int) *tensor {
	return &tensor{dt: t.dt, shape: shape, f: t.f, i: t.i, b: t.b}
}

// ints returns the values of an integer tensor.
func (t *tensor) ints() ([]int64, error) {
	if t.dt != dtInt {
		return nil, fmt.Errorf("want an integer tensor, got %s", t.dt)
	}
	return t.i, nil
}

// scalar returns the single value of an integer tensor of size one.
func (t *tensor) scalar() (int, error) {
	v, err := t.ints()
	if err != nil {
		return 0, err
	}
	if len(v) != 1 {
		return 0, fmt.Errorf("want one value, got shape %v", t.shape)
	}
	return int(v[0]), nil
}

// take returns a tensor of the given shape whose k-th element is element
// idx[k] of t.
func (t *tensor) take(shape []int, idx []int) *tensor {
	out := newTensor(t.dt, shape)
	switch t.dt {
	case dtFloat:
		for k, j := range idx {
			out.f[k] = t.f[j]
		}
	case dtInt:
		for k, j := range idx {
			out.i[k] = t.i[j]
		}
	case dtBool:
		for k, j := range idx {
			out.b[k] = t.b[j]
		}
	}
	return out
}

// copyTo copies n elements of t from offset src to dst at offset at.
func (t *tensor) copyTo(dst *tensor, at, src, n int) {
	switch t.dt {
	case dtFloat:
		copy(dst.f[at:at+n], t.f[src:src+n])
	case dtInt:
		copy(dst.i[at:at+n], t.i[src:src+n])
	case dtBool:
		copy(dst.b[at:at+n], t.b[src:src+n])
	}
}

func strides(shape []int) []int {
	s := make([]int, len(shape))
	acc := 1
	for d := len(shape) - 1; d >= 0; d-- {
		s[d] = acc
		acc *= shape[d]
	}
	return s
}

// stridedIndex lists, in row-major order over counts, the flat offsets
// start + sum(pos[d]*steps[d]).
func stridedIndex(counts []int, start int, steps []int) []int {
	n := numel(counts)
	idx := make([]int, n)
	pos := make([]int, len(counts))
	off := start
	for k := range n {
		idx[k] = off
		for d := len(counts) - 1; d >= 0; d-- {
			pos[d]++
			off += steps[d]
			if pos[d] < counts[d] {
				break
			}
			off -= steps[d] * counts[d]
			pos[d] = 0
		}
	}
	return idx
}

// axis turns a possibly negative axis into one in [0, rank).
func axis(a, rank int) (int, error) {
	if a < 0 {
		a += rank
	}
	if a < 0 || a >= rank {
		return 0, fmt.Errorf("axis %d out of range for rank %d", a, rank)
	}
	return a, nil
}

// opFunc runs one operation. It gets the node for its attributes, and as
// many inputs as its [opSpec] says.
type opFunc func(n *node, in []*tensor) ([]*tensor, error)

// opSpec is a supported operation: how many inputs it takes (-1 for a list)
// and its implementation.
type opSpec struct {
	inputs int
	run    opFunc
}

// ops maps each supported TensorFlow operation to its implementation.
var ops map[string]opSpec

func init() {
	add := arith(func(x, y float32) float32 { return x + y }, func(x, y int64) int64 { return x + y })
	ops = map[string]opSpec{
		"Add":     {2, add},
		"AddV2":   {2, add},
		"Sub":     {2, arith(func(x, y float32) float32 { return x - y }, func(x, y int64) int64 { return x - y })},
		"Mul":     {2, arith(func(x, y float32) float32 { return x * y }, func(x, y int64) int64 { return x * y })},
		"RealDiv": {2, arith(func(x, y float32) float32 { return x / y }, nil)},
		"Maximum": {2, arith(func(x, y float32) float32 { return max(x, y) }, func(x, y int64) int64 { return max(x, y) })},
		"Less":    {2, compare(func(x, y float32) bool { return x < y }, func(x, y int64) bool { return x < y })},
		"Greater": {2, compare(func(x, y float32) bool { return x > y }, func(x, y int64) bool { return x > y })},

		"Square": {1, unary(func(x float32) float32 { return x * x })},
		"Relu":   {1, unary(func(x float32) float32 { return max(x, 0) })},
		"Rsqrt":  {1, unary(func(x float32) float32 { return float32(1 / math.Sqrt(float64(x))) })},
		"Tanh":   {1, unary(func(x float32) float32 { return float32(math.Tanh(float64(x))) })},
		"Sin":    {1, unary(func(x float32) float32 { return float32(math.Sin(float64(x))) })},
		"Cos":    {1, unary(func(x float32) float32 { return float32(math.Cos(float64(x))) })},

		"LogicalNot": {1, opLogicalNot},
		"Cast":       {1, opCast},
		"Shape":      {1, opShape},
		"Reshape":    {2, opReshape},
		"ExpandDims": {2, opExpandDims},
		"Squeeze":    {1, opSqueeze},
		"Transpose":  {2, opTranspose},
		"Slice":      {3, opSlice},

		"StridedSlice":  {4, opStridedSlice},
		"ConcatV2":      {-1, opConcat},
		"Pack":          {-1, opPack},
		"SplitV":        {3, opSplitV},
		"GatherV2":      {3, opGather},
		"GatherNd":      {2, opGatherNd},
		"ScatterNd":     {3, opScatterNd},
		"SparseToDense": {4, opSparseToDense},
		"Where":         {1, opWhere},
		"Range":         {3, opRange},

		"Sum":  {2, reduce(redSum)},
		"Mean": {2, reduce(redMean)},
		"Max":  {2, reduce(redMax)},
		"Prod": {2, reduce(redProd)},

		"MatMul":        {2, opMatMul},
		"BatchMatMul":   {2, opBatchMatMul},
		"BatchMatMulV2": {2, opBatchMatMul},
		"Conv2D":        {2, opConv2D},
		"BiasAdd":       {2, opBiasAdd},
		"Softmax":       {1, opSoftmax},
	}
}

func one(t *tensor, err error) ([]*tensor, error) {
	if err != nil {
		return nil, err
	}
	return []*tensor{t}, nil
}

// broadcast works out numpy-style broadcasting of a and b. It returns the
// output shape and, for a and b, the step of each output dimension in the
// operand (zero where the operand is broadcast).
func broadcast(a, b []int) (out, stepA, stepB []int, err error) {
	r := max(len(a), len(b))
	out = make([]int, r)
	stepA, stepB = make([]int, r), make([]int, r)
	sa, sb := strides(a), strides(b)
	for d := range r {
		da, db := 1, 1
		ia, ib := d-(r-len(a)), d-(r-len(b))
		if ia >= 0 {
			da = a[ia]
		}
		if ib >= 0 {
			db = b[ib]
		}
		switch {
		case da == db, db == 1:
			out[d] = da
		case da == 1:
			out[d] = db
		default:
			return nil, nil, nil, fmt.Errorf("cannot broadcast shapes %v and %v", a, b)
		}
		if ia >= 0 && da != 1 {
			stepA[d] = sa[ia]
		}
		if ib >= 0 && db != 1 {
			stepB[d] = sb[ib]
		}
	}
	return out, stepA, stepB, nil
}

func equalShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// zip applies f elementwise to xs and ys under broadcasting.
func zip[T, R any](xs, ys []T, shA, shB []int, f func(x, y T) R) ([]int, []R, error) {
	if equalShape(shA, shB) {
		out := make([]R, len(xs))
		for k := range out {
			out[k] = f(xs[k], ys[k])
		}
		return shA, out, nil
	}
	if len(ys) == 1 && len(shB) <= len(shA) {
		out := make([]R, len(xs))
		for k := range out {
			out[k] = f(xs[k], ys[0])
		}
		return shA, out, nil
	}
	// Layer norm's two cases: y is [..., 1] against x [..., C], or y is
	// x's trailing shape.
	if r := len(shA); r > 0 && len(shB) == r && shB[r-1] == 1 && equalShape(shA[:r-1], shB[:r-1]) {
		out, c := make([]R, len(xs)), shA[r-1]
		for k := range out {
			out[k] = f(xs[k], ys[k/c])
		}
		return shA, out, nil
	}
	if len(ys) > 0 && len(shB) <= len(shA) && equalShape(shA[len(shA)-len(shB):], shB) {
		out := make([]R, len(xs))
		for k := range out {
			out[k] = f(xs[k], ys[k%len(ys)])
		}
		return shA, out, nil
	}
	shape, stA, stB, err := broadcast(shA, shB)
	if err != nil {
		return nil, nil, err
	}
	ia, ib := stridedIndex(shape, 0, stA), stridedIndex(shape, 0, stB)
	out := make([]R, len(ia))
	for k := range out {
		out[k] = f(xs[ia[k]], ys[ib[k]])
	}
	return shape, out, nil
}

func arith(ff func(x, y float32) float32, fi func(x, y int64) int64) opFunc {
	return func(_ *node, in []*tensor) ([]*tensor, error) {
		a, b := in[0], in[1]
		if a.dt != b.dt {
			return nil, fmt.Errorf("mixed types %s and %s", a.dt, b.dt)
		}
		switch {
		case a.dt == dtFloat:
			shape, v, err := zip(a.f, b.f, a.shape, b.shape, ff)
			return one(&tensor{dt: dtFloat, shape: shape, f: v}, err)
		case a.dt == dtInt && fi != nil:
			shape, v, err := zip(a.i, b.i, a.shape, b.shape, fi)
			return one(&tensor{dt: dtInt, shape: shape, i: v}, err)
		}
		return nil, fmt.Errorf("unsupported type %s", a.dt)
	}
}

func compare(ff func(x, y float32) bool, fi func(x, y int64) bool) opFunc {
	return func(_ *node, in []*tensor) ([]*tensor, error) {
		a, b := in[0], in[1]
		var (
			shape []int
			v     []bool
			err   error
		)
		switch {
		case a.dt != b.dt:
			return nil, fmt.Errorf("mixed types %s and %s", a.dt, b.dt)
		case a.dt == dtFloat:
			shape, v, err = zip(a.f, b.f, a.shape, b.shape, ff)
		case a.dt == dtInt:
			shape, v, err = zip(a.i, b.i, a.shape, b.shape, fi)
		default:
			return nil, fmt.Errorf("unsupported type %s", a.dt)
		}
		return one(&tensor{dt: dtBool, shape: shape, b: v}, err)
	}
}

func unary(f func(x float32) float32) opFunc {
	return func(_ *node, in []*tensor) ([]*tensor, error) {
		x := in[0]
		if x.dt != dtFloat {
			return nil, fmt.Errorf("want float32, got %s", x.dt)
		}
		out := newTensor(dtFloat, x.shape)
		for k, v := range x.f {
			out.f[k] = f(v)
		}
		return []*tensor{out}, nil
	}
}

func opLogicalNot(_ *node, in []*tensor) ([]*tensor, error) {
	x := in[0]
	if x.dt != dtBool {
		return nil, fmt.Errorf("want bool, got %s", x.dt)
	}
	out := newTensor(dtBool, x.shape)
	for k, v := range x.b {
		out.b[k] = !v
	}
	return []*tensor{out}, nil
}

func opCast(n *node, in []*tensor) ([]*tensor, error) {
	x, to := in[0], n.attrType("DstT")
	if x.dt == to {
		return []*tensor{x}, nil
	}
	out := newTensor(to, x.shape)
	for k := range x.size() {
		var v float64
		switch x.dt {
		case dtFloat:
			v = float64(x.f[k])
		case dtInt:
			v = float64(x.i[k])
		case dtBool:
			if x.b[k] {
				v = 1
			}
		}
		switch to {
		case dtFloat:
			out.f[k] = float32(v)
		case dtInt:
			out.i[k] = int64(v)
		case dtBool:
			out.b[k] = v != 0
		default:
			return nil, fmt.Errorf("cannot cast to %s", to)
		}
	}
	return []*tensor{out}, nil
}

func opShape(_ *node, in []*tensor) ([]*tensor, error) {
	v := make([]int64, len(in[0].shape))
	for k, d := range in[0].shape {
		v[k] = int64(d)
	}
	return []*tensor{intTensor([]int{len(v)}, v)}, nil
}

func opReshape(_ *node, in []*tensor) ([]*tensor, error) {
	want, err := in[1].ints()
	if err != nil {
		return nil, err
	}
	shape, known, infer := make([]int, len(want)), 1, -1
	for k, d := range want {
		switch {
		case d == -1 && infer < 0:
			infer = k
		case d < 0:
			return nil, fmt.Errorf("bad shape %v", want)
		default:
			shape[k] = int(d)
			known *= int(d)
		}
	}
	size := in[0].size()
	if infer >= 0 {
		if known == 0 || size%known != 0 {
			return nil, fmt.Errorf("cannot reshape %v to %v", in[0].shape, want)
		}
		shape[infer] = size / known
	} else if known != size {
		return nil, fmt.Errorf("cannot reshape %v to %v", in[0].shape, want)
	}
	return []*tensor{in[0].reshaped(shape)}, nil
}

func opExpandDims(_ *node, in []*tensor) ([]*tensor, error) {
	x := in[0]
	d, err := in[1].scalar()
	if err != nil {
		return nil, err
	}
	if d, err = axis(d, len(x.shape)+1); err != nil {
		return nil, err
	}
	shape := append(append(append([]int{}, x.shape[:d]...), 1), x.shape[d:]...)
	return []*tensor{x.reshaped(shape)}, nil
}

func opSqueeze(n *node, in []*tensor) ([]*tensor, error) {
	x := in[0]
	drop := make([]bool, len(x.shape))
	dims := n.attrInts("squeeze_dims")
	for _, d := range dims {
		a, err := axis(int(d), len(x.shape))
		if err != nil {
			return nil, err
		}
		if x.shape[a] != 1 {
			return nil, fmt.Errorf("cannot squeeze dimension %d of shape %v", a, x.shape)
		}
		drop[a] = true
	}
	var shape []int
	for d, s := range x.shape {
		if !drop[d] && (len(dims) > 0 || s != 1) {
			shape = append(shape, s)
		}
	}
	return []*tensor{x.reshaped(shape)}, nil
}

func opTranspose(_ *node, in []*tensor) ([]*tensor, error) {
	x := in[0]
	perm, err := in[1].ints()
	if err != nil {
		return nil, err
	}
	if len(perm) != len(x.shape) {
		return nil, fmt.Errorf("permutation %v for shape %v", perm, x.shape)
	}
	st := strides(x.shape)
	shape, steps := make([]int, len(perm)), make([]int, len(perm))
	for k, p := range perm {
		if p < 0 || int(p) >= len(x.shape) {
			return nil, fmt.Errorf("bad permutation %v", perm)
		}
		shape[k], steps[k] = x.shape[p], st[p]
	}
	return []*tensor{x.take(shape, stridedIndex(shape, 0, steps))}, nil
}

func opSlice(_ *node, in []*tensor) ([]*tensor, error) {
	x := in[0]
	begin, err := in[1].ints()
	if err != nil {
		return nil, err
	}
	size, err := in[2].ints()
	if err != nil {
		return nil, err
	}
	if len(begin) != len(x.shape) || len(size) != len(x.shape) {
		return nil, fmt.Errorf("slice %v+%v of shape %v", begin, size, x.shape)
	}
	st := strides(x.shape)
	shape, start := make([]int, len(x.shape)), 0
	for d, dim := range x.shape {
		b, s := int(begin[d]), int(size[d])
		if s == -1 {
			s = dim - b
		}
		if b < 0 || s < 0 || b+s > dim {
			return nil, fmt.Errorf("slice %v+%v of shape %v", begin, size, x.shape)
		}
		shape[d], start = s, start+b*st[d]
	}
	return []*tensor{x.take(shape, stridedIndex(shape, start, st))}, nil
}

func opStridedSlice(n *node, in []*tensor) ([]*tensor, error) {
	if n.attrInt("ellipsis_mask") != 0 || n.attrInt("new_axis_mask") != 0 {
		return nil, errors.New("ellipsis_mask and new_axis_mask are not supported")
	}
	x := in[0]
	var spec [3][]int64
	for k := range spec {
		v, err := in[k+1].ints()
		if err != nil {
			return nil, err
		}
		spec[k] = v
	}
	begin, end, stride := spec[0], spec[1], spec[2]
	if len(end) != len(begin) || len(stride) != len(begin) || len(begin) > len(x.shape) {
		return nil, fmt.Errorf("bad slice spec for shape %v", x.shape)
	}
	bm, em, sm := n.attrInt("begin_mask"), n.attrInt("end_mask"), n.attrInt("shrink_axis_mask")
	st := strides(x.shape)
	counts, steps := make([]int, len(x.shape)), make([]int, len(x.shape))
	var shape []int
	start := 0
	for d, dim := range x.shape {
		if d >= len(begin) {
			counts[d], steps[d] = dim, st[d]
			shape = append(shape, dim)
			continue
		}
		bit := int64(1) << d
		s, b, e := int(stride[d]), int(begin[d]), int(end[d])
		if s == 0 {
			return nil, errors.New("zero stride")
		}
		if sm&bit != 0 {
			if b < 0 {
				b += dim
			}
			if b < 0 || b >= dim {
				return nil, fmt.Errorf("index %d out of range for dimension %d", begin[d], dim)
			}
			counts[d], start = 1, start+b*st[d]
			continue
		}
		lo, hi := 0, dim
		if s < 0 {
			lo, hi = -1, dim-1
		}
		clamp := func(v int) int {
			if v < 0 {
				v += dim
			}
			return min(max(v, lo), hi)
		}
		switch {
		case bm&bit != 0 && s > 0:
			b = 0
		case bm&bit != 0:
			b = dim - 1
		default:
			b = clamp(b)
		}
		switch {
		case em&bit != 0 && s > 0:
			e = dim
		case em&bit != 0:
			e = -1
		default:
			e = clamp(e)
		}
		c := 0
		if s > 0 && e > b {
			c = (e - b + s - 1) / s
		} else if s < 0 && b > e {
			c = (b - e - s - 1) / -s
		}
		counts[d], steps[d] = c, s*st[d]
		if c > 0 {
			start += b * st[d]
		}
		shape = append(shape, c)
	}
	out := x.take(counts, stridedIndex(counts, start, steps))
	return []*tensor{out.reshaped(shape)}, nil
}

// concat joins tensors of one type along an axis.
func concat(xs []*tensor, ax int) (*tensor, error) {
	if len(xs) == 0 {
		return nil, errors.New("nothing to concatenate")
	}
	first := xs[0]
	a, err := axis(ax, len(first.shape))
	if err != nil {
		return nil, err
	}
	shape := append([]int{}, first.shape...)
	shape[a] = 0
	for _, x := range xs {
		if x.dt != first.dt || len(x.shape) != len(first.shape) {
			return nil, fmt.Errorf("cannot concatenate %s%v and %s%v", first.dt, first.shape, x.dt, x.shape)
		}
		for d := range x.shape {
			if d != a && x.shape[d] != first.shape[d] {
				return nil, fmt.Errorf("cannot concatenate shapes %v and %v on axis %d", first.shape, x.shape, a)
			}
		}
		shape[a] += x.shape[a]
	}
	out := newTensor(first.dt, shape)
	outer, inner := numel(shape[:a]), numel(shape[a+1:])
	at := 0
	for o := range outer {
		for _, x := range xs {
			block := x.shape[a] * inner
			x.copyTo(out, at, o*block, block)
			at += block
		}
	}
	return out, nil
}

func opConcat(_ *node, in []*tensor) ([]*tensor, error) {
	if len(in) < 2 {
		return nil, errors.New("want values and an axis")
	}
	a, err := in[len(in)-1].scalar()
	if err != nil {
		return nil, err
	}
	return one(concat(in[:len(in)-1], a))
}

func opPack(n *node, in []*tensor) ([]*tensor, error) {
	if len(in) == 0 {
		return nil, errors.New("nothing to pack")
	}
	rank := len(in[0].shape)
	a, err := axis(int(n.attrInt("axis")), rank+1)
	if err != nil {
		return nil, err
	}
	xs := make([]*tensor, len(in))
	for k, x := range in {
		if !equalShape(x.shape, in[0].shape) {
			return nil, fmt.Errorf("cannot pack shapes %v and %v", in[0].shape, x.shape)
		}
		shape := append(append(append([]int{}, x.shape[:a]...), 1), x.shape[a:]...)
		xs[k] = x.reshaped(shape)
	}
	return one(concat(xs, a))
}

func opSplitV(_ *node, in []*tensor) ([]*tensor, error) {
	x := in[0]
	sizes, err := in[1].ints()
	if err != nil {
		return nil, err
	}
	a, err := in[2].scalar()
	if err != nil {
		return nil, err
	}
	if a, err = axis(a, len(x.shape)); err != nil {
		return nil, err
	}
	split, total, infer := make([]int, len(sizes)), 0, -1
	for k, s := range sizes {
		if s == -1 && infer < 0 {
			infer = k
			continue
		}
		if s < 0 {
			return nil, fmt.Errorf("bad split sizes %v", sizes)
		}
		split[k], total = int(s), total+int(s)
	}
	if infer >= 0 {
		split[infer] = x.shape[a] - total
		total = x.shape[a]
	}
	if total != x.shape[a] || (infer >= 0 && split[infer] < 0) {
		return nil, fmt.Errorf("split sizes %v do not add up to %d", sizes, x.shape[a])
	}
	st := strides(x.shape)
	outs := make([]*tensor, len(split))
	at := 0
	for k, s := range split {
		shape := append([]int{}, x.shape...)
		shape[a] = s
		outs[k] = x.take(shape, stridedIndex(shape, at*st[a], st))
		at += s
	}
	return outs, nil
}

func opGather(n *node, in []*tensor) ([]*tensor, error) {
	if n.attrInt("batch_dims") != 0 {
		return nil, errors.New("batch_dims is not supported")
	}
	params, indices := in[0], in[1]
	idx, err := indices.ints()
	if err != nil {
		return nil, err
	}
	a, err := in[2].scalar()
	if err != nil {
		return nil, err
	}
	if a, err = axis(a, len(params.shape)); err != nil {
		return nil, err
	}
	shape := append(append(append([]int{}, params.shape[:a]...), indices.shape...), params.shape[a+1:]...)
	out := newTensor(params.dt, shape)
	outer, inner, dim := numel(params.shape[:a]), numel(params.shape[a+1:]), params.shape[a]
	at := 0
	for o := range outer {
		for _, j := range idx {
			if j < 0 || int(j) >= dim {
				return nil, fmt.Errorf("index %d out of range [0, %d)", j, dim)
			}
			params.copyTo(out, at, (o*dim+int(j))*inner, inner)
			at += inner
		}
	}
	return []*tensor{out}, nil
}

// ndOffsets turns the rows of an [..., k] index tensor into flat offsets of
// blocks in a tensor of the given shape. It returns the offsets and the
// block size.
func ndOffsets(indices *tensor, shape []int) ([]int, int, error) {
	idx, err := indices.ints()
	if err != nil {
		return nil, 0, err
	}
	if len(indices.shape) == 0 {
		return nil, 0, errors.New("indices must have rank 1 or more")
	}
	k := indices.shape[len(indices.shape)-1]
	if k > len(shape) {
		return nil, 0, fmt.Errorf("index depth %d for shape %v", k, shape)
	}
	st := strides(shape)
	inner := numel(shape[k:])
	rows := numel(indices.shape[:len(indices.shape)-1])
	offs := make([]int, rows)
	for r := range rows {
		for d := range k {
			j := idx[r*k+d]
			if j < 0 || int(j) >= shape[d] {
				return nil, 0, fmt.Errorf("index %d out of range [0, %d)", j, shape[d])
			}
			offs[r] += int(j) * st[d]
		}
	}
	return offs, inner, nil
}

func opGatherNd(_ *node, in []*tensor) ([]*tensor, error) {
	params, indices := in[0], in[1]
	offs, inner, err := ndOffsets(indices, params.shape)
	if err != nil {
		return nil, err
	}
	k := indices.shape[len(indices.shape)-1]
	shape := append(append([]int{}, indices.shape[:len(indices.shape)-1]...), params.shape[k:]...)
	out := newTensor(params.dt, shape)
	for r, off := range offs {
		params.copyTo(out, r*inner, off, inner)
	}
	return []*tensor{out}, nil
}

func opScatterNd(_ *node, in []*tensor) ([]*tensor, error) {
	indices, updates := in[0], in[1]
	dims, err := in[2].ints()
	if err != nil {
		return nil, err
	}
	shape := make([]int, len(dims))
	for k, d := range dims {
		shape[k] = int(d)
	}
	offs, inner, err := ndOffsets(indices, shape)
	if err != nil {
		return nil, err
	}
	if updates.size() != len(offs)*inner {
		return nil, fmt.Errorf("updates of shape %v for %d blocks of %d", updates.shape, len(offs), inner)
	}
	out := newTensor(updates.dt, shape)
	for r, off := range offs {
		switch updates.dt {
		case dtFloat:
			for j := range inner {
				out.f[off+j] += updates.f[r*inner+j]
			}
		case dtInt:
			for j := range inner {
				out.i[off+j] += updates.i[r*inner+j]
			}
		default:
			return nil, fmt.Errorf("unsupported type %s", updates.dt)
		}
	}
	return []*tensor{out}, nil
}

func opSparseToDense(_ *node, in []*tensor) ([]*tensor, error) {
	indices, values, def := in[0], in[2], in[3]
	dims, err := in[1].ints()
	if err != nil {
		return nil, err
	}
	shape := make([]int, len(dims))
	for k, d := range dims {
		shape[k] = int(d)
	}
	if indices.size() == 0 {
		indices = intTensor([]int{0, len(shape)}, nil)
	} else if len(indices.shape) < 2 {
		indices = indices.reshaped([]int{indices.size() / len(shape), len(shape)})
	}
	offs, inner, err := ndOffsets(indices, shape)
	if err != nil {
		return nil, err
	}
	if inner != 1 || def.size() != 1 || def.dt != values.dt || (values.size() != 1 && values.size() != len(offs)) {
		return nil, errors.New("bad sparse input")
	}
	out := newTensor(values.dt, shape)
	for k := range out.size() {
		def.copyTo(out, k, 0, 1)
	}
	for r, off := range offs {
		if values.size() == 1 {
			values.copyTo(out, off, 0, 1)
		} else {
			values.copyTo(out, off, r, 1)
		}
	}
	return []*tensor{out}, nil
}

func opWhere(_ *node, in []*tensor) ([]*tensor, error) {
	x := in[0]
	if x.dt != dtBool {
		return nil, fmt.Errorf("want bool, got %s", x.dt)
	}
	rank, st := len(x.shape), strides(x.shape)
	var v []int64
	for k, ok := range x.b {
		if !ok {
			continue
		}
		for d := range rank {
			v = append(v, int64(k/st[d]%x.shape[d]))
		}
	}
	return []*tensor{intTensor([]int{len(v) / max(rank, 1), rank}, v)}, nil
}

func opRange(_ *node, in []*tensor) ([]*tensor, error) {
	var lim [3]int
	for k := range lim {
		v, err := in[k].scalar()
		if err != nil {
			return nil, err
		}
		lim[k] = v
	}
	start, limit, delta := lim[0], lim[1], lim[2]
	if delta == 0 {
		return nil, errors.New("zero delta")
	}
	var v []int64
	for x := start; (delta > 0 && x < limit) || (delta < 0 && x > limit); x += delta {
		v = append(v, int64(x))
	}
	return []*tensor{intTensor([]int{len(v)}, v)}, nil
}

type reduction uint8

const (
	redSum reduction = iota
	redMean
	redMax
	redProd
)

func reduce(kind reduction) opFunc {
	return func(n *node, in []*tensor) ([]*tensor, error) {
		x := in[0]
		axes, err := in[1].ints()
		if err != nil {
			return nil, err
		}
		drop := make([]bool, len(x.shape))
		for _, a := range axes {
			d, err := axis(int(a), len(x.shape))
			if err != nil {
				return nil, err
			}
			drop[d] = true
		}
		kept := make([]int, len(x.shape)) // the shape with reduced dimensions as 1
		var shape []int
		for d, s := range x.shape {
			kept[d] = s
			if drop[d] {
				kept[d] = 1
			}
			if !drop[d] || n.attrBool("keep_dims") {
				shape = append(shape, kept[d])
			}
		}
		steps := strides(kept)
		for d := range steps {
			if drop[d] {
				steps[d] = 0
			}
		}
		dst := stridedIndex(x.shape, 0, steps)
		size := numel(kept)
		count := float64(x.size()) / float64(max(size, 1))
		switch x.dt {
		case dtFloat:
			acc := make([]float64, size)
			switch kind {
			case redMax:
				for k := range acc {
					acc[k] = math.Inf(-1)
				}
			case redProd:
				for k := range acc {
					acc[k] = 1
				}
			}
			for k, v := range x.f {
				j := dst[k]
				switch kind {
				case redSum, redMean:
					acc[j] += float64(v)
				case redMax:
					acc[j] = max(acc[j], float64(v))
				case redProd:
					acc[j] *= float64(v)
				}
			}
			out := newTensor(dtFloat, shape)
			for k, v := range acc {
				if kind == redMean {
					v /= count
				}
				out.f[k] = float32(v)
			}
			return []*tensor{out}, nil
		case dtInt:
			if kind == redMean {
				return nil, errors.New("integer Mean is not supported")
			}
			out := newTensor(dtInt, shape)
			for k := range out.i {
				switch kind {
				case redMax:
					out.i[k] = math.MinInt64
				case redProd:
					out.i[k] = 1
				}
			}
			for k, v := range x.i {
				j := dst[k]
				switch kind {
				case redSum:
					out.i[j] += v
				case redMax:
					out.i[j] = max(out.i[j], v)
				case redProd:
					out.i[j] *= v
				}
			}
			return []*tensor{out}, nil
		}
		return nil, fmt.Errorf("unsupported type %s", x.dt)
	}
}

// matmul sets c (m×n) to a (m×k) times b (k×n), all row-major float32.
//
// It walks b once, eight rows at a time, and adds those rows, weighted by
// a, into every row of c, so the weights stream through the cache a single
// time however many tokens there are. Pure Go has no SIMD; eight rows per
// pass keep the loop busy with arithmetic rather than loads and stores.
func matmul(c, a, b []float32, m, k, n int) {
	c = c[:m*n]
	clear(c)
	const tile = 512 // columns of c per pass, to keep them in the L1 cache
	for j0 := 0; j0 < n; j0 += tile {
		j1 := min(j0+tile, n)
		p := 0
		for ; p+8 <= k; p += 8 {
			var x [8][]float32
			for q := range x {
				x[q] = b[(p+q)*n+j0 : (p+q)*n+j1]
			}
			for i := range m {
				axpy8(c[i*n+j0:i*n+j1], &x, (*[8]float32)(a[i*k+p:i*k+p+8]))
			}
		}
		for ; p < k; p++ {
			for i := range m {
				axpy(c[i*n+j0:i*n+j1], b[p*n+j0:p*n+j1], a[i*k+p])
			}
		}
	}
}

// axpy adds a times x to y.
func axpy(y, x []float32, a float32) {
	x = x[:len(y)]
	for j := range y {
		y[j] += a * x[j]
	}
}

// axpy8 adds a[0]·x[0] + … + a[7]·x[7] to y.
func axpy8(y []float32, x *[8][]float32, a *[8]float32) {
	n := len(y)
	x0, x1, x2, x3 := x[0][:n], x[1][:n], x[2][:n], x[3][:n]
	x4, x5, x6, x7 := x[4][:n], x[5][:n], x[6][:n], x[7][:n]
	a0, a1, a2, a3, a4, a5, a6, a7 := a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
	for j := range y {
		y[j] += a0*x0[j] + a1*x1[j] + a2*x2[j] + a3*x3[j] + a4*x4[j] + a5*x5[j] + a6*x6[j] + a7*x7[j]
	}
}

func transpose2(x *tensor) *tensor {
	r, c := x.shape[0], x.shape[1]
	out := newTensor(dtFloat, []int{c, r})
	for i := range r {
		for j := range c {
			out.f[j*r+i] = x.f[i*c+j]
		}
	}
	return out
}

func opMatMul(n *node, in []*tensor) ([]*tensor, error) {
	a, b := in[0], in[1]
	if a.dt != dtFloat || b.dt != dtFloat || len(a.shape) != 2 || len(b.shape) != 2 {
		return nil, fmt.Errorf("want two float32 matrices, got %s%v and %s%v", a.dt, a.shape, b.dt, b.shape)
	}
	if n.attrBool("transpose_a") {
		a = transpose2(a)
	}
	if n.attrBool("transpose_b") {
		b = transpose2(b)
	}
	if a.shape[1] != b.shape[0] {
		return nil, fmt.Errorf("cannot multiply %v by %v", a.shape, b.shape)
	}
	out := newTensor(dtFloat, []int{a.shape[0], b.shape[1]})
	matmul(out.f, a.f, b.f, a.shape[0], a.shape[1], b.shape[1])
	return []*tensor{out}, nil
}

func opBatchMatMul(n *node, in []*tensor) ([]*tensor, error) {
	x, y := in[0], in[1]
	r := len(x.shape)
	if x.dt != dtFloat || y.dt != dtFloat || r < 2 || len(y.shape) != r || !equalShape(x.shape[:r-2], y.shape[:r-2]) {
		return nil, fmt.Errorf("cannot batch-multiply %s%v by %s%v", x.dt, x.shape, y.dt, y.shape)
	}
	adjX, adjY := n.attrBool("adj_x"), n.attrBool("adj_y")
	batch := numel(x.shape[:r-2])
	xr, xc, yr, yc := x.shape[r-2], x.shape[r-1], y.shape[r-2], y.shape[r-1]
	m, k, k2, nn := xr, xc, yr, yc
	if adjX {
		m, k = xc, xr
	}
	if adjY {
		k2, nn = yc, yr
	}
	if k != k2 {
		return nil, fmt.Errorf("cannot batch-multiply %v by %v", x.shape, y.shape)
	}
	shape := append(append([]int{}, x.shape[:r-2]...), m, nn)
	out := newTensor(dtFloat, shape)
	for bi := range batch {
		a := &tensor{dt: dtFloat, shape: []int{xr, xc}, f: x.f[bi*xr*xc : (bi+1)*xr*xc]}
		b := &tensor{dt: dtFloat, shape: []int{yr, yc}, f: y.f[bi*yr*yc : (bi+1)*yr*yc]}
		if adjX {
			a = transpose2(a)
		}
		if adjY {
			b = transpose2(b)
		}
		matmul(out.f[bi*m*nn:(bi+1)*m*nn], a.f, b.f, m, k, nn)
	}
	return []*tensor{out}, nil
}

// opConv2D supports the only convolution the graph has: a 1×1 kernel with
// unit strides in NHWC layout, which is a matrix product over the channels.
func opConv2D(n *node, in []*tensor) ([]*tensor, error) {
	x, w := in[0], in[1]
	if f := n.attrString("data_format"); f != "" && f != "NHWC" {
		return nil, fmt.Errorf("data format %q is not supported", f)
	}
	for _, name := range []string{"strides", "dilations"} {
		for _, s := range n.attrInts(name) {
			if s != 1 {
				return nil, fmt.Errorf("%s %v are not supported", name, n.attrInts(name))
			}
		}
	}
	if x.dt != dtFloat || len(x.shape) != 4 || len(w.shape) != 4 || w.shape[0] != 1 || w.shape[1] != 1 || w.shape[2] != x.shape[3] {
		return nil, fmt.Errorf("only 1×1 kernels are supported: input %v, filter %v", x.shape, w.shape)
	}
	rows, cin, cout := numel(x.shape[:3]), w.shape[2], w.shape[3]
	out := newTensor(dtFloat, []int{x.shape[0], x.shape[1], x.shape[2], cout})
	matmul(out.f, x.f, w.f, rows, cin, cout)
	return []*tensor{out}, nil
}

func opBiasAdd(n *node, in []*tensor) ([]*tensor, error) {
	x, b := in[0], in[1]
	if f := n.attrString("data_format"); f != "" && f != "NHWC" {
		return nil, fmt.Errorf("data format %q is not supported", f)
	}
	if x.dt != dtFloat || b.dt != dtFloat || len(b.shape) != 1 || len(x.shape) == 0 || x.shape[len(x.shape)-1] != b.shape[0] {
		return nil, fmt.Errorf("cannot add bias %v to %v", b.shape, x.shape)
	}
	out := newTensor(dtFloat, x.shape)
	c := b.shape[0]
	for k := 0; k < len(x.f); k += c {
		row, dst := x.f[k:k+c], out.f[k:k+c]
		for j, v := range b.f {
			dst[j] = row[j] + v
		}
	}
	return []*tensor{out}, nil
}

func opSoftmax(_ *node, in []*tensor) ([]*tensor, error) {
	x := in[0]
	if x.dt != dtFloat || len(x.shape) == 0 {
		return nil, fmt.Errorf("cannot take softmax of %s%v", x.dt, x.shape)
	}
	out := newTensor(dtFloat, x.shape)
	c := x.shape[len(x.shape)-1]
	for k := 0; k+c <= len(x.f); k += c {
		row, dst := x.f[k:k+c], out.f[k:k+c]
		top := float32(math.Inf(-1))
		for _, v := range row {
			top = max(top, v)
		}
		var sum float64
		for j, v := range row {
			e := math.Exp(float64(v - top))
			dst[j] = float32(e)
			sum += e
		}
		for j := range dst {
			dst[j] = float32(float64(dst[j]) / sum)
		}
	}
	return []*tensor{out}, nil
}
