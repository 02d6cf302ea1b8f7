package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesHoldOneComponent checks the split of the engine that
// docs/architecture.md describes: each file's methods belong to one of
// the components (shared, reader, writer, maintainer), and the facade's
// own methods live in engine.go and open.go.
func TestFilesHoldOneComponent(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	components := map[string]bool{"shared": true, "reader": true, "writer": true, "maintainer": true}
	facade := map[string]bool{"engine.go": true, "open.go": true}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			star, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			id, ok := star.X.(*ast.Ident)
			if !ok {
				continue
			}
			switch {
			case id.Name == "Engine" && !facade[name]:
				t.Errorf("%s: method Engine.%s belongs in engine.go or open.go, which hold the facade", name, fd.Name.Name)
			case components[id.Name]:
				seen[id.Name] = true
			}
		}
		if len(seen) > 1 {
			t.Errorf("%s holds methods of %d components (%v); a file holds one", name, len(seen), seen)
		}
	}
}
