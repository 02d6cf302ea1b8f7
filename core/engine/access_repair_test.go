package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

// TestSharedOpenRebuildsAnUnusableIndex: a shared engine that finds the
// index unusable (another version, corrupt) rebuilds it at open, and the
// very first recall works, rather than the second.
func TestSharedOpenRebuildsAnUnusableIndex(t *testing.T) {
	home := t.TempDir()
	cfg := core.Config{Storage: core.StorageConfig{Home: home}}
	e, err := openWith(t, cfg, Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, cst)
	if _, err := e.Ingest(t.Context(), []core.Message{msg("s", at, core.RoleUser, "the staging proxy listens on port 8443")}); err != nil {
		t.Fatal(err)
	}
	e.Close()
	// An index folder that is not an index, as after a format change.
	dir := filepath.Join(home, indexDir)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("not an index"), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err = openWith(t, cfg, Options{Logf: t.Logf, Access: AccessShared})
	if err != nil {
		t.Fatalf("shared open: %v", err)
	}
	defer e.Close()
	res, err := e.Recall(t.Context(), core.Query{Text: "staging proxy port"})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("first recall after the rebuild: %+v, %v", res, err)
	}
}
