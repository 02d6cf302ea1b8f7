package importgraph

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated edge list in docs/architecture.md")

const (
	module  = "github.com/huimemory/huimemory"
	docPath = "docs/architecture.md"
	// The markers that open the two fenced blocks the test reads.
	layersMarker = "<!-- layers:"
	edgesMarker  = "<!-- edges:"
)

// forbidden lists, per package, import paths (or path prefixes ending in
// "/") that must not be among its dependencies, direct or not.
var forbidden = map[string][]string{
	// The engine links no gRPC, go-plugin or plugin glue, and no HTTP
	// stack: core/index uses bleve's sub-packages, not its root package,
	// whose expvar import pulls in net/http.
	"core/engine": {"google.golang.org/grpc/", "google.golang.org/grpc", "github.com/hashicorp/go-plugin",
		module + "/plugins/builtin", module + "/plugins/host", module + "/plugins/embedder/uselite",
		"expvar", "net/http", "github.com/blevesearch/bleve/v2"},
	// The product links no benchmark harness: they are huimem-bench's.
	"cmd/huimem":   {module + "/internal/bench/"},
	"internal/cli": {module + "/internal/bench/"},
	// Only the archive package and its users link the cgo zstd binding.
	"archive/transcript":        {"github.com/DataDog/zstd"},
	"chunkers":                  {"github.com/DataDog/zstd"},
	"internal/render":           {"github.com/DataDog/zstd"},
	"plugins/extractor/general": {"github.com/DataDog/zstd"},
	"plugins/extractor/topic":   {"github.com/DataDog/zstd"},
	"plugins/extractor/llm":     {"github.com/DataDog/zstd"},
	"plugins/embedder/hash":     {"github.com/DataDog/zstd"},
	// The root package, huimemory, takes a plain core.Config: it links no
	// CLI (nor cobra and viper, which read flags and config files), no
	// server and no benchmark harness.
	".": {module + "/internal/cli", module + "/internal/bench/", module + "/core/server", module + "/core/mcpserver",
		module + "/core/proxy", "github.com/spf13/cobra", "github.com/spf13/viper"},
}

// importedOnlyBy lists, per package, the module-relative path prefixes of
// the packages that alone may import it, in their code or in their
// in-package tests; a prefix ending in "/" matches the folder's packages.
var importedOnlyBy = map[string][]string{
	// The root package is the one import for programs outside the module.
	// Inside it only programs use it; the packages below it keep using
	// the packages it wraps.
	".": {"cmd/", "examples/"},
}

// pkg is one package of the module, with its imports inside the module
// (module-relative paths).
type pkg struct {
	path        string
	imports     []string // without tests
	testImports []string // of its in-package tests (package x, not x_test)
	deps        []string // every dependency, any module
}

func root(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// list runs go list over the module.
func list(t *testing.T, dir string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-f",
		"{{.ImportPath}}\t{{join .Imports \" \"}}\t{{join .TestImports \" \"}}\t{{join .Deps \" \"}}", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	ours := func(paths string) []string {
		var rel []string
		for _, p := range strings.Fields(paths) {
			if p == module {
				rel = append(rel, ".")
			} else if r, ok := strings.CutPrefix(p, module+"/"); ok && !slices.Contains(rel, r) {
				rel = append(rel, r)
			}
		}
		slices.Sort(rel)
		return rel
	}
	var pkgs []pkg
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if len(f) != 4 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		p := pkg{path: ours(f[0])[0], imports: ours(f[1]), testImports: ours(f[2]), deps: strings.Fields(f[3])}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// block returns the lines of the fenced block that follows marker in doc,
// and the byte offsets of its first and last content lines' ends.
func block(t *testing.T, doc []byte, marker string) (lines []string, start, end int) {
	t.Helper()
	i := bytes.Index(doc, []byte(marker))
	if i < 0 {
		t.Fatalf("%s: no %q block", docPath, marker)
	}
	open := bytes.Index(doc[i:], []byte("```"))
	if open < 0 {
		t.Fatalf("%s: no fenced block after %q", docPath, marker)
	}
	start = i + open + bytes.IndexByte(doc[i+open:], '\n') + 1
	closeAt := bytes.Index(doc[start:], []byte("```"))
	if closeAt < 0 {
		t.Fatalf("%s: the block after %q is not closed", docPath, marker)
	}
	end = start + closeAt
	for _, l := range strings.Split(string(doc[start:end]), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines, start, end
}

// layers parses the layer table: "N label: pkg pkg", indented lines
// continuing the layer above.
func layers(t *testing.T, lines []string) map[string]int {
	t.Helper()
	out := map[string]int{}
	layer := -1
	for i, l := range lines {
		fields := strings.Fields(l)
		if l[0] != ' ' && l[0] != '\t' {
			n, err := strconv.Atoi(fields[0])
			if err != nil || n != layer+1 || len(fields) < 2 || !strings.HasSuffix(fields[1], ":") {
				t.Fatalf("%s: layer table line %d %q: want \"%d label: packages\"", docPath, i+1, l, layer+1)
			}
			layer = n
			fields = fields[2:]
		}
		if layer < 0 {
			t.Fatalf("%s: layer table line %d %q continues no layer", docPath, i+1, l)
		}
		for _, p := range fields {
			if prev, ok := out[p]; ok {
				t.Errorf("%s: %s is in layers %d and %d", docPath, p, prev, layer)
			}
			out[p] = layer
		}
	}
	return out
}

// edges renders the generated edge list.
func edges(pkgs []pkg) string {
	var b strings.Builder
	for _, p := range pkgs {
		if len(p.imports) == 0 {
			fmt.Fprintf(&b, "%s\n", p.path)
			continue
		}
		fmt.Fprintf(&b, "%s -> %s\n", p.path, strings.Join(p.imports, " "))
	}
	return b.String()
}

func TestImportGraph(t *testing.T) {
	dir := root(t)
	doc, err := os.ReadFile(filepath.Join(dir, docPath))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := list(t, dir)
	tableLines, _, _ := block(t, doc, layersMarker)
	layer := layers(t, tableLines)

	t.Run("every package has a layer", func(t *testing.T) {
		var listed []string
		for _, p := range pkgs {
			listed = append(listed, p.path)
			if _, ok := layer[p.path]; !ok {
				t.Errorf("%s has no layer: add it to the table in %s", p.path, docPath)
			}
		}
		for p := range layer {
			if !slices.Contains(listed, p) {
				t.Errorf("%s names %s, which is not a package of the module", docPath, p)
			}
		}
	})
	t.Run("imports run downward", func(t *testing.T) {
		for _, p := range pkgs {
			from, ok := layer[p.path]
			if !ok {
				continue
			}
			check := func(kind string, imports []string) {
				for _, imp := range imports {
					if to, ok := layer[imp]; ok && to > from {
						t.Errorf("%s (layer %d) %s %s (layer %d): imports must not run upward", p.path, from, kind, imp, to)
					}
				}
			}
			check("imports", p.imports)
			check("has tests that import", p.testImports)
		}
	})
	t.Run("forbidden dependencies", func(t *testing.T) {
		for _, p := range pkgs {
			for _, bad := range forbidden[p.path] {
				for _, d := range p.deps {
					if d == bad || (strings.HasSuffix(bad, "/") && strings.HasPrefix(d, bad)) {
						t.Errorf("%s depends on %s", p.path, d)
					}
				}
			}
		}
		for path := range forbidden {
			if !slices.ContainsFunc(pkgs, func(p pkg) bool { return p.path == path }) {
				t.Errorf("forbidden names %s, which is not a package of the module", path)
			}
		}
	})
	t.Run("imported only by", func(t *testing.T) {
		for _, p := range pkgs {
			for _, imp := range slices.Concat(p.imports, p.testImports) {
				allowed, ok := importedOnlyBy[imp]
				if ok && !slices.ContainsFunc(allowed, func(a string) bool {
					return p.path == a || strings.HasSuffix(a, "/") && strings.HasPrefix(p.path, a)
				}) {
					t.Errorf("%s imports %s, which only %s may import", p.path, display(imp), strings.Join(allowed, ", "))
				}
			}
		}
		for path := range importedOnlyBy {
			if !slices.ContainsFunc(pkgs, func(p pkg) bool { return p.path == path }) {
				t.Errorf("importedOnlyBy names %s, which is not a package of the module", path)
			}
		}
	})
	t.Run("generated edges", func(t *testing.T) {
		_, start, end := block(t, doc, edgesMarker)
		want := edges(pkgs)
		if got := string(doc[start:end]); got != want {
			if *update {
				doc = slices.Concat(doc[:start], []byte(want), doc[end:])
				if err := os.WriteFile(filepath.Join(dir, docPath), doc, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			t.Errorf("the edge list in %s is out of date; run go test ./internal/importgraph -update\n%s",
				docPath, lineDiff(got, want))
		}
	})
}

// display names a module-relative package path in a message.
func display(path string) string {
	if path == "." {
		return "the root package (huimemory)"
	}
	return path
}

// lineDiff lists the lines only in want (+) or only in got (-).
func lineDiff(got, want string) string {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		sc := bufio.NewScanner(strings.NewReader(s))
		for sc.Scan() {
			m[sc.Text()] = true
		}
		return m
	}
	g, w := set(got), set(want)
	var b strings.Builder
	for l := range w {
		if !g[l] {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	for l := range g {
		if !w[l] {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	return b.String()
}
