package uselite

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLazyLoadsAtFirstEmbed: Open reads no weights, Info needs none, and
// the first Embed loads the model and embeds exactly as Load's model does.
func TestLazyLoadsAtFirstEmbed(t *testing.T) {
	want := testModel(t) // skips without the weights
	l, err := Open(DefaultDir())
	if err != nil {
		t.Fatal(err)
	}
	info, err := l.Info(t.Context())
	if err != nil || info.Name != Name || info.Model != ModelName || info.Dim != Dim {
		t.Fatalf("Info = %+v, %v", info, err)
	}
	if l.Loaded() {
		t.Fatal("Open or Info read the weights")
	}
	texts := []string{"we decided to deploy on Friday", ""}
	got, err := l.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Loaded() {
		t.Fatal("Embed did not load the model")
	}
	ref, err := want.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if !slices.Equal(got[i], ref[i]) {
			t.Errorf("text %d: lazy model's vector differs from Load's", i)
		}
	}
}

// TestLazyErrors: missing files fail at Open as Load fails; damaged
// weights fail at every Embed, with the file named.
func TestLazyErrors(t *testing.T) {
	if _, err := Open(t.TempDir()); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), modelFile) {
		t.Errorf("Open of an empty folder: %v, want fs.ErrNotExist naming %s", err, modelFile)
	}
	dir := t.TempDir()
	for name, body := range map[string]string{modelFile: "{not json", vocabFile: "[]"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Open(dir)
	if err != nil {
		t.Fatalf("Open with both files present: %v", err)
	}
	for range 2 {
		_, err := l.Embed(t.Context(), []string{"x"})
		if err == nil || !strings.Contains(err.Error(), modelFile) {
			t.Errorf("Embed with a damaged model.json: %v, want an error naming it", err)
		}
	}
	if !l.Loaded() {
		t.Error("Loaded is false after a failed load")
	}
}

// TestLoadReadsOrMapsAlike: weights used where they lie in the mapped
// shards (mapShards) and weights read and decoded (shards that do not
// fill whole pages) give the same vectors.
func TestLoadReadsOrMapsAlike(t *testing.T) {
	mapped := testModel(t) // skips without the weights
	src := DefaultDir()
	raw, err := os.ReadFile(filepath.Join(src, modelFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	// Re-cut every group's shards at an odd size, so that no shard but
	// the last fills whole pages.
	dir := t.TempDir()
	for g, group := range m["weightsManifest"].([]any) {
		gm := group.(map[string]any)
		var all []byte
		for _, p := range gm["paths"].([]any) {
			b, err := os.ReadFile(filepath.Join(src, p.(string)))
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, b...)
		}
		var paths []any
		for at, k := 0, 0; at < len(all); k++ {
			end := min(at+1_000_003, len(all))
			name := fmt.Sprintf("g%d-part%d", g, k)
			if err := os.WriteFile(filepath.Join(dir, name), all[at:end], 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, name)
			at = end
		}
		gm["paths"] = paths
	}
	out, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, modelFile), out, 0o644); err != nil {
		t.Fatal(err)
	}
	vocab, err := os.ReadFile(filepath.Join(src, vocabFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, vocabFile), vocab, 0o644); err != nil {
		t.Fatal(err)
	}
	read, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"The cat sits on the mat.", "我们决定周五部署", "budget review for the Kyoto trip"}
	a, err := mapped.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := read.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if !slices.Equal(a[i], b[i]) {
			t.Errorf("%q: read weights give another vector than mapped ones", texts[i])
		}
	}
}
