package contract

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
)

// TestSealReadReopen seals a finished week, reads its text back through
// recall and RecallByID (on another engine too, with a cache folder of its
// own: on the postgres backend, another server), re-opens it with a late
// message, and seals it again.
func TestSealReadReopen(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		cfg := config(t)
		e := open(t, cfg)
		topics := []string{"kubernetes autoscaling", "sourdough starter", "tax filing deadline"}
		msgs := chat("", "s1", 3, func(i int) string { return topics[i] })
		ingest(t, e, msgs)
		now := base.AddDate(0, 0, 21)
		sealed, err := e.Seal(t.Context(), engine.SealOptions{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if len(sealed) != 1 || sealed[0].Week != "2026-W16" || !sealed[0].Sealed {
			t.Fatalf("Seal = %+v; want week 2026-W16 sealed", sealed)
		}
		other := cfg
		other.Storage.Home = t.TempDir() // a second server's own folder
		readers := []*engine.Engine{e}
		if cfg.Storage.Backend == core.BackendPostgres {
			readers = append(readers, open(t, other))
		}
		for i, r := range readers {
			res, err := r.Recall(t.Context(), core.Query{Text: "sourdough starter", TopK: 1, NoTime: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != 1 || res.Hits[0].Messages[0].Text != msgs[2].Text {
				t.Fatalf("engine %d: recall from the sealed week = %+v", i, res.Hits)
			}
			walk, err := r.RecallByID(t.Context(), "", res.Hits[0].ID, 1)
			if err != nil || len(walk) != 3 {
				t.Fatalf("engine %d: RecallByID(±1) = %d hits, %v", i, len(walk), err)
			}
		}
		weeks, err := e.Weeks(t.Context())
		if err != nil || len(weeks) != 1 || weeks[0].State != "sealed" {
			t.Fatalf("Weeks = %+v, %v", weeks, err)
		}
		checks, err := e.VerifyArchives(t.Context())
		if err != nil || len(checks) != 1 {
			t.Fatalf("VerifyArchives = %+v, %v", checks, err)
		}
		// A late message re-opens the week; its text and the old ones are
		// all readable, and the week seals again.
		late := core.Message{Session: "s1", Time: base.Add(10 * time.Minute), Role: core.RoleUser, Text: "one more question about sourdough hydration"}
		ingest(t, e, []core.Message{late})
		_, data, err := e.Transcript(t.Context(), "", "s1")
		if err != nil || !strings.Contains(string(data), late.Text) || !strings.Contains(string(data), msgs[0].Text) {
			t.Fatalf("transcript after the re-open: %v\n%s", err, data)
		}
		if weeks, _ := e.Weeks(t.Context()); len(weeks) != 1 || weeks[0].Sealed {
			t.Fatalf("after a late message, Weeks = %+v; want the week open", weeks)
		}
		if sealed, err := e.Seal(t.Context(), engine.SealOptions{Now: now}); err != nil || len(sealed) != 1 {
			t.Fatalf("sealing again = %+v, %v", sealed, err)
		}
		for i, r := range readers {
			res, err := r.Recall(t.Context(), core.Query{Text: "sourdough hydration", TopK: 1, NoTime: true})
			if err != nil || len(res.Hits) != 1 || !strings.Contains(hitText(res.Hits[0]), late.Text) {
				t.Fatalf("engine %d: recall of the late message after the re-seal = %+v, %v", i, res.Hits, err)
			}
		}
	})
}

func hitText(h core.Hit) string {
	var b strings.Builder
	for _, m := range h.Messages {
		b.WriteString(m.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestForgetSealedLeavesNoCopies: after a forget of a sealed session, no
// server keeps its text in its cache folder (decompressed weeks, or, on
// PostgreSQL, copies of the archives), not even one that read the week
// before the forget.
func TestForgetSealedLeavesNoCopies(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		cfg := config(t)
		a := open(t, cfg)
		secret := "zanzibar vaccination appointment"
		msgs := chat("", "s1", 2, func(i int) string { return []string{secret, "sourdough starter"}[i] })
		ingest(t, a, msgs)
		if _, err := a.Seal(t.Context(), engine.SealOptions{Now: base.AddDate(0, 0, 21)}); err != nil {
			t.Fatal(err)
		}
		other := cfg
		if cfg.Storage.Backend == core.BackendPostgres {
			other.Storage.Home = t.TempDir() // a second server's own folder
		}
		b := open(t, other)
		for _, e := range []*engine.Engine{a, b} {
			res, err := e.Recall(t.Context(), core.Query{Text: "zanzibar vaccination", TopK: 1, NoTime: true})
			if err != nil || len(res.Hits) != 1 || !strings.Contains(hitText(res.Hits[0]), secret) {
				t.Fatalf("recall from the sealed week before the forget: %+v, %v", res, err)
			}
		}
		if _, err := a.Forget(t.Context(), engine.ForgetOptions{Session: "s1"}); err != nil {
			t.Fatal(err)
		}
		homes := []string{cfg.Storage.Home, other.Storage.Home}
		var left []string
		for try := 0; try < 100; try++ { // b hears of the forget within milliseconds
			left = plainCopies(t, homes, "zanzibar")
			if len(left) == 0 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if len(left) > 0 {
			t.Errorf("forgotten text left in cache folders: %v", left)
		}
		if res, err := b.Recall(t.Context(), core.Query{Text: "zanzibar vaccination", NoTime: true}); err != nil || len(res.Hits) != 0 {
			t.Errorf("b's recall after the forget: %+v, %v", res, err)
		}
	})
}

// plainCopies lists the files under each home's cache folder that hold
// needle, or that are archive copies (which hold it compressed).
func plainCopies(t *testing.T, homes []string, needle string) []string {
	t.Helper()
	var out []string
	for _, h := range homes {
		root := filepath.Join(h, "cache")
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			if strings.HasSuffix(p, ".tar.zst") && strings.Contains(p, string(filepath.Separator)+"archives"+string(filepath.Separator)) {
				out = append(out, p)
				return nil
			}
			if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), needle) {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}
