package uselite

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"
)

// This file reads a TF.js graph model (model.json and its weight shards)
// and runs it. The interpreter knows exactly the operations in ops.go.

// Files that [Load] reads from the model directory.
const (
	modelFile = "model.json"
	vocabFile = "vocab.json"
)

// Names of the graph's two inputs: the [token, 2] (sentence, position)
// pairs of a sparse batch and the token ids at those places.
const (
	inputIndices = "indices"
	inputValues  = "values"
)

// DefaultDir returns the directory where scripts/fetch-models.sh puts the
// weights: $HUIMEM_MODELS/use-lite, or ~/.cache/huimem/models/use-lite when
// HUIMEM_MODELS is unset. It only computes the path.
func DefaultDir() string {
	root := os.Getenv("HUIMEM_MODELS")
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "."
		}
		root = filepath.Join(home, ".cache", "huimem", "models")
	}
	return filepath.Join(root, "use-lite")
}

// modelJSON is the part of a TF.js model.json that the interpreter needs.
type modelJSON struct {
	ModelTopology struct {
		Node []nodeJSON `json:"node"`
	} `json:"modelTopology"`
	WeightsManifest []struct {
		Paths   []string     `json:"paths"`
		Weights []weightJSON `json:"weights"`
	} `json:"weightsManifest"`
}

type nodeJSON struct {
	Name  string              `json:"name"`
	Op    string              `json:"op"`
	Input []string            `json:"input"`
	Attr  map[string]attrJSON `json:"attr"`
}

// attrJSON is a TensorFlow AttrValue in protobuf JSON form. Integers may be
// strings ("2") and byte strings may be base64 or arrays of bytes.
type attrJSON struct {
	S    json.RawMessage `json:"s"`
	I    json.RawMessage `json:"i"`
	B    *bool           `json:"b"`
	Type json.RawMessage `json:"type"`
	List *struct {
		I []json.RawMessage `json:"i"`
	} `json:"list"`
}

type weightJSON struct {
	Name         string `json:"name"`
	Shape        []int  `json:"shape"`
	Dtype        string `json:"dtype"`
	Quantization *struct {
		Dtype string  `json:"dtype"`
		Scale float64 `json:"scale"`
		Min   float64 `json:"min"`
	} `json:"quantization"`
}

// attr is a parsed node attribute.
type attr struct {
	i    int64
	b    bool
	s    string
	ints []int64
	typ  dtype
}

// ref names one output of a node, by the node's place in graph.nodes.
type ref struct{ node, out int }

// node is one operation of the graph.
type node struct {
	name  string
	op    string
	attrs map[string]attr
	in    []ref
	run   opFunc
	value *tensor // the weight of a Const
}

func (n *node) attrInt(name string) int64     { return n.attrs[name].i }
func (n *node) attrBool(name string) bool     { return n.attrs[name].b }
func (n *node) attrString(name string) string { return n.attrs[name].s }
func (n *node) attrInts(name string) []int64  { return n.attrs[name].ints }
func (n *node) attrType(name string) dtype    { return n.attrs[name].typ }

// graph is a model ready to run: its nodes in an order where every input
// comes before its use.
type graph struct {
	nodes   []*node
	free    [][]int // free[k] lists the nodes whose values are dead after step k
	indices int     // node of the "indices" placeholder
	values  int     // node of the "values" placeholder
	output  int     // node whose first output is the embedding
}

// readFile reads one file of the model directory, wrapping errors with the
// file and directory names.
func readFile(dir, name string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, fmt.Errorf("uselite: reading %s in %s: %w", name, dir, err)
	}
	return b, nil
}

// loadGraph reads model.json and the weight shards it lists from dir.
func loadGraph(dir string) (*graph, error) {
	raw, err := readFile(dir, modelFile)
	if err != nil {
		return nil, err
	}
	var m modelJSON
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("uselite: reading %s in %s: %w", modelFile, dir, err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("uselite: reading %s in %s: %s", modelFile, dir, fmt.Sprintf(format, args...))
	}
	if len(m.ModelTopology.Node) == 0 {
		return nil, bad("no graph nodes")
	}
	weights, err := loadWeights(dir, &m)
	if err != nil {
		return nil, err
	}

	byName := make(map[string]int, len(m.ModelTopology.Node))
	for k, nj := range m.ModelTopology.Node {
		if _, dup := byName[nj.Name]; dup {
			return nil, bad("node %q appears twice", nj.Name)
		}
		byName[nj.Name] = k
	}

	// Parse every node, then keep only those the output depends on, in
	// dependency order.
	all := make([]*node, len(m.ModelTopology.Node))
	inputs := make([][]ref, len(all))
	used := make([]bool, len(all))
	for k, nj := range m.ModelTopology.Node {
		n := &node{name: nj.Name, op: nj.Op, attrs: make(map[string]attr, len(nj.Attr))}
		for key, aj := range nj.Attr {
			a, err := parseAttr(aj)
			if err != nil {
				return nil, bad("node %q: attribute %s: %v", nj.Name, key, err)
			}
			n.attrs[key] = a
		}
		switch nj.Op {
		case "Const":
			w, ok := weights[nj.Name]
			if !ok {
				return nil, bad("constant %q is not in the weights manifest", nj.Name)
			}
			n.value = w
		case "Placeholder", "Identity":
		default:
			spec, ok := ops[nj.Op]
			if !ok {
				return nil, bad("node %q: unsupported operation %s", nj.Name, nj.Op)
			}
			if args := countInputs(nj.Input); spec.inputs >= 0 && args != spec.inputs {
				return nil, bad("node %q: %s takes %d inputs, not %d", nj.Name, nj.Op, spec.inputs, args)
			}
			n.run = spec.run
		}
		for _, in := range nj.Input {
			if strings.HasPrefix(in, "^") {
				continue // control dependency: nothing to pass
			}
			name, out := in, 0
			if i := strings.LastIndexByte(in, ':'); i >= 0 {
				if v, err := strconv.Atoi(in[i+1:]); err == nil {
					name, out = in[:i], v
				}
			}
			j, ok := byName[name]
			if !ok {
				return nil, bad("node %q: unknown input %q", nj.Name, in)
			}
			inputs[k] = append(inputs[k], ref{j, out})
			used[j] = true
		}
		all[k] = n
	}

	output := -1
	for k, n := range all {
		if used[k] || n.op == "Const" || n.op == "Placeholder" {
			continue
		}
		if output >= 0 {
			return nil, bad("two outputs: %q and %q", all[output].name, n.name)
		}
		output = k
	}
	if output < 0 {
		return nil, bad("no output node")
	}

	// Depth-first topological order from the output.
	g := &graph{indices: -1, values: -1}
	place := make([]int, len(all))
	state := make([]uint8, len(all)) // 0 new, 1 in progress, 2 placed
	var visit func(k int) error
	visit = func(k int) error {
		switch state[k] {
		case 1:
			return bad("cycle through node %q", all[k].name)
		case 2:
			return nil
		}
		state[k] = 1
		for _, r := range inputs[k] {
			if err := visit(r.node); err != nil {
				return err
			}
		}
		state[k] = 2
		place[k] = len(g.nodes)
		n := all[k]
		for _, r := range inputs[k] {
			n.in = append(n.in, ref{place[r.node], r.out})
		}
		switch {
		case n.op == "Placeholder" && n.name == inputIndices:
			g.indices = place[k]
		case n.op == "Placeholder" && n.name == inputValues:
			g.values = place[k]
		case n.op == "Placeholder":
			return bad("unknown input %q", n.name)
		}
		g.nodes = append(g.nodes, n)
		return nil
	}
	if err := visit(output); err != nil {
		return nil, err
	}
	if g.indices < 0 || g.values < 0 {
		return nil, bad("the graph lacks the %q and %q inputs", inputIndices, inputValues)
	}
	g.output = len(g.nodes) - 1

	// Drop each intermediate value after its last use.
	last := make([]int, len(g.nodes))
	for k, n := range g.nodes {
		for _, r := range n.in {
			last[r.node] = k
		}
	}
	g.free = make([][]int, len(g.nodes))
	for k, n := range g.nodes {
		if n.op != "Const" && k != g.output {
			g.free[last[k]] = append(g.free[last[k]], k)
		}
	}
	return g, nil
}

// countInputs counts data inputs, leaving out control dependencies.
func countInputs(in []string) int {
	n := 0
	for _, s := range in {
		if !strings.HasPrefix(s, "^") {
			n++
		}
	}
	return n
}

func parseInt(raw json.RawMessage) (int64, error) {
	s := strings.Trim(string(raw), `"`)
	return strconv.ParseInt(s, 10, 64)
}

// tfTypes maps TensorFlow DataType values, as numbers or names, to dtypes.
var tfTypes = map[string]dtype{
	"1": dtFloat, "DT_FLOAT": dtFloat,
	"3": dtInt, "DT_INT32": dtInt,
	"9": dtInt, "DT_INT64": dtInt,
	"10": dtBool, "DT_BOOL": dtBool,
}

func parseAttr(aj attrJSON) (attr, error) {
	var a attr
	var err error
	if len(aj.I) > 0 {
		if a.i, err = parseInt(aj.I); err != nil {
			return a, err
		}
	}
	if aj.B != nil {
		a.b = *aj.B
	}
	if len(aj.Type) > 0 {
		a.typ = tfTypes[strings.Trim(string(aj.Type), `"`)]
	}
	if len(aj.S) > 0 {
		var bytes []byte
		var s string
		if err := json.Unmarshal(aj.S, &bytes); err == nil {
			a.s = string(bytes)
		} else if err := json.Unmarshal(aj.S, &s); err == nil {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return a, err
			}
			a.s = string(b)
		} else {
			return a, err
		}
	}
	if aj.List != nil {
		for _, raw := range aj.List.I {
			v, err := parseInt(raw)
			if err != nil {
				return a, err
			}
			a.ints = append(a.ints, v)
		}
	}
	return a, nil
}

// loadWeights reads the shards of every manifest group, concatenated in
// manifest order, and cuts them into tensors, little-endian.
func loadWeights(dir string, m *modelJSON) (map[string]*tensor, error) {
	weights := make(map[string]*tensor)
	for _, group := range m.WeightsManifest {
		data, mapped, err := mapShards(dir, group.Paths)
		if err == nil && !mapped {
			data, err = readShards(dir, group.Paths)
		}
		if err != nil {
			return nil, err
		}
		shards := strings.Join(group.Paths, ", ")
		for _, w := range group.Weights {
			t, n, err := decodeWeight(w, data, mapped)
			if err != nil {
				return nil, fmt.Errorf("uselite: reading %s in %s: weight %q: %w", shards, dir, w.Name, err)
			}
			weights[w.Name] = t
			data = data[n:]
		}
		if len(data) != 0 {
			return nil, fmt.Errorf("uselite: reading %s in %s: %d bytes left after the last weight", shards, dir, len(data))
		}
	}
	return weights, nil
}

// openShards opens the files of one manifest group, which must lie in
// dir, and returns their sizes. The caller closes the files (closeAll),
// also on error.
func openShards(dir string, paths []string) ([]*os.File, []int, error) {
	files := make([]*os.File, len(paths))
	sizes := make([]int, len(paths))
	for k, p := range paths {
		if !filepath.IsLocal(p) {
			return files, nil, fmt.Errorf("uselite: reading %s in %s: shard path %q leaves the directory", modelFile, dir, p)
		}
		f, err := os.Open(filepath.Join(dir, p))
		if err != nil {
			return files, nil, fmt.Errorf("uselite: reading %s in %s: %w", p, dir, err)
		}
		files[k] = f
		fi, err := f.Stat()
		if err != nil {
			return files, nil, fmt.Errorf("uselite: reading %s in %s: %w", p, dir, err)
		}
		sizes[k] = int(fi.Size())
	}
	return files, sizes, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// littleEndian reports whether float32s are stored here as the shards
// store them.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// readShards reads and concatenates the files of one manifest group.
func readShards(dir string, paths []string) ([]byte, error) {
	files, sizes, err := openShards(dir, paths)
	defer closeAll(files)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, n := range sizes {
		total += n
	}
	data := make([]byte, total)
	at := 0
	for k, f := range files {
		if _, err := io.ReadFull(f, data[at:at+sizes[k]]); err != nil {
			return nil, fmt.Errorf("uselite: reading %s in %s: %w", paths[k], dir, err)
		}
		at += sizes[k]
	}
	return data, nil
}

// decodeWeight decodes one weight from the front of data and says how many
// bytes it used.
//
// With inPlace (data is a private mapping of the shards that outlives the
// tensor), a float32 weight that is aligned, on a little-endian machine,
// is used where it lies rather than copied.
func decodeWeight(w weightJSON, data []byte, inPlace bool) (*tensor, int, error) {
	for _, d := range w.Shape {
		if d < 0 {
			return nil, 0, fmt.Errorf("bad shape %v", w.Shape)
		}
	}
	count := numel(w.Shape)
	elem, kind := 4, w.Dtype
	if q := w.Quantization; q != nil {
		kind = q.Dtype
		switch q.Dtype {
		case "uint8":
			elem = 1
		case "uint16", "float16":
			elem = 2
		default:
			return nil, 0, fmt.Errorf("unsupported quantization %q", q.Dtype)
		}
		if w.Dtype != "float32" {
			return nil, 0, fmt.Errorf("quantized %s weights are not supported", w.Dtype)
		}
	} else if w.Dtype == "bool" {
		elem = 1
	}
	n := count * elem
	if len(data) < n {
		return nil, 0, fmt.Errorf("want %d bytes, the shards have %d left (truncated?)", n, len(data))
	}
	data = data[:n]
	le := binary.LittleEndian
	switch kind {
	case "float32":
		if inPlace && count > 0 && littleEndian && uintptr(unsafe.Pointer(&data[0]))%4 == 0 {
			f := unsafe.Slice((*float32)(unsafe.Pointer(&data[0])), count)
			return &tensor{dt: dtFloat, shape: w.Shape, f: f}, n, nil
		}
		t := newTensor(dtFloat, w.Shape)
		for k := range t.f {
			t.f[k] = math.Float32frombits(le.Uint32(data[4*k:]))
		}
		return t, n, nil
	case "int32":
		t := newTensor(dtInt, w.Shape)
		for k := range t.i {
			t.i[k] = int64(int32(le.Uint32(data[4*k:])))
		}
		return t, n, nil
	case "bool":
		t := newTensor(dtBool, w.Shape)
		for k := range t.b {
			t.b[k] = data[k] != 0
		}
		return t, n, nil
	case "uint8", "uint16":
		q := w.Quantization
		t := newTensor(dtFloat, w.Shape)
		for k := range t.f {
			v := float64(data[k])
			if elem == 2 {
				v = float64(le.Uint16(data[2*k:]))
			}
			t.f[k] = float32(v*q.Scale + q.Min)
		}
		return t, n, nil
	case "float16":
		t := newTensor(dtFloat, w.Shape)
		for k := range t.f {
			t.f[k] = float16(le.Uint16(data[2*k:]))
		}
		return t, n, nil
	}
	return nil, 0, fmt.Errorf("unsupported dtype %q", w.Dtype)
}

// float16 converts an IEEE 754 half-precision value to float32.
func float16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
	case frac == 0:
		return math.Float32frombits(sign)
	}
	v := float32(frac) / (1 << 24) // subnormal: frac × 2^-24
	if sign != 0 {
		v = -v
	}
	return v
}

// run executes the graph for one sparse batch: rows of (sentence,
// position) pairs and the token id at each. It returns the [batch, 512]
// embeddings. It only reads the graph, so concurrent runs are safe.
func (g *graph) run(pairs [][2]int, ids []int) (*tensor, error) {
	if len(pairs) != len(ids) {
		return nil, errors.New("uselite: indices and values differ in length")
	}
	idx := make([]int64, 0, 2*len(pairs))
	for _, p := range pairs {
		idx = append(idx, int64(p[0]), int64(p[1]))
	}
	val := make([]int64, len(ids))
	for k, id := range ids {
		val[k] = int64(id)
	}
	values := make([][]*tensor, len(g.nodes))
	values[g.indices] = []*tensor{intTensor([]int{len(pairs), 2}, idx)}
	values[g.values] = []*tensor{intTensor([]int{len(ids)}, val)}
	in := make([]*tensor, 0, 8)
	for k, n := range g.nodes {
		switch {
		case n.value != nil:
			values[k] = []*tensor{n.value}
		case n.run != nil:
			in = in[:0]
			for _, r := range n.in {
				if r.out >= len(values[r.node]) {
					return nil, fmt.Errorf("uselite: node %q: input %q has no output %d", n.name, g.nodes[r.node].name, r.out)
				}
				in = append(in, values[r.node][r.out])
			}
			out, err := n.run(n, in)
			if err != nil {
				return nil, fmt.Errorf("uselite: node %q (%s): %w", n.name, n.op, err)
			}
			values[k] = out
		case n.op == "Identity":
			if len(n.in) != 1 {
				return nil, fmt.Errorf("uselite: node %q: Identity wants one input", n.name)
			}
			values[k] = values[n.in[0].node][n.in[0].out:]
		}
		for _, j := range g.free[k] {
			values[j] = nil
		}
	}
	out := values[g.output][0]
	if out.dt != dtFloat || len(out.shape) != 2 {
		return nil, fmt.Errorf("uselite: output is %s%v, want a float32 matrix", out.dt, out.shape)
	}
	return out, nil
}
