package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
)

// TestIngestIsAllOrNothingWhenAPluginCrashes runs the engine on plugin
// processes and kills the embedder in the middle of an ingest: the ingest
// fails with an error that names the plugin, nothing of the file is
// stored, and the next ingest restarts the plugin and stores everything.
// (An extractor that crashes does not fail the ingest: see
// TestExtractorCrashIsRetriedLater.)
func TestIngestIsAllOrNothingWhenAPluginCrashes(t *testing.T) {
	for _, kind := range []string{KindEmbedder} {
		t.Run(kind, func(t *testing.T) {
			cfg := testConfig(t, func(c *core.Config) {
				if kind == KindExtractor {
					c.Extractors = []core.PluginSpec{faulty("-kind", "extractor")}
				} else {
					c.Embedding.PluginSpec = faulty("-kind", "embedder")
				}
			})
			h := newHost(t, cfg)
			e, err := engine.Open(t.Context(), cfg, engine.Options{
				Embedder: h.Embedder(), Chunker: h.Chunker(),
				Extractors: h.Extractors(), ExtractorNames: h.ExtractorNames(),
				Logf: t.Logf,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()

			dir := t.TempDir()
			crashing := writeJSONL(t, dir, "crashing.jsonl",
				`{"session":"s1","time":"2026-03-05T10:00:00+08:00","role":"user","text":"we chose Kyoto for the May trip"}`,
				`{"session":"s1","time":"2026-03-05T10:01:00+08:00","role":"assistant","text":"noted: Kyoto in May"}`,
				`{"session":"s2","time":"2026-03-06T10:00:00+08:00","role":"user","text":"this one makes the plugin CRASH"}`,
			)
			_, err = e.IngestFile(t.Context(), crashing, engine.FileOptions{})
			wantErr(t, err, ErrCrashed, `plugin `+kind+` "faulty" (`+bins.faulty+`): crashed during the call`)

			st, err := e.Stats(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if st.Chunks != 0 || st.Messages != 0 || st.Sessions != 0 {
				t.Errorf("after the failed ingest: %d chunks, %d messages, %d sessions; want nothing", st.Chunks, st.Messages, st.Sessions)
			}
			if files := transcripts(t, e.Home()); len(files) != 0 {
				t.Errorf("after the failed ingest the home holds transcripts %v", files)
			}

			clean := writeJSONL(t, dir, "clean.jsonl",
				`{"session":"s1","time":"2026-03-05T10:00:00+08:00","role":"user","text":"we chose Kyoto for the May trip"}`,
				`{"session":"s1","time":"2026-03-05T10:01:00+08:00","role":"assistant","text":"noted: Kyoto in May"}`,
			)
			res, err := e.IngestFile(t.Context(), clean, engine.FileOptions{})
			if err != nil {
				t.Fatalf("ingest after the crash: %v", err)
			}
			if res.Added != 2 || res.Chunks != 1 {
				t.Errorf("ingest after the crash = %+v, want 2 messages in 1 chunk", res)
			}
			r, err := e.Recall(t.Context(), core.Query{Text: "Kyoto trip"})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Hits) != 1 {
				t.Fatalf("recall found %d hits, want 1", len(r.Hits))
			}
			if kind == KindExtractor {
				if m := r.Hits[0].Memories; len(m) != 1 || m[0].Extractor != "faulty" || m[0].Type != "note" {
					t.Errorf("memories = %+v, want one note from the faulty extractor", m)
				}
			}
		})
	}
}

func writeJSONL(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// transcripts lists the files under the home's sessions folder.
func transcripts(t *testing.T, home string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(home, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestExtractorCrashIsRetriedLater kills an extractor process in the middle
// of an ingest: the ingest stores everything, reports the failed
// extraction by plugin, counts it as pending, and a retry restarts the
// plugin (which crashes again on the same turn, so it stays pending) while
// the other turns keep their memories.
func TestExtractorCrashIsRetriedLater(t *testing.T) {
	cfg := testConfig(t, func(c *core.Config) { c.Extractors = []core.PluginSpec{faulty("-kind", "extractor")} })
	h := newHost(t, cfg)
	e, err := engine.Open(t.Context(), cfg, engine.Options{
		Embedder: h.Embedder(), Chunker: h.Chunker(),
		Extractors: h.Extractors(), ExtractorNames: h.ExtractorNames(), Logf: t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	file := writeJSONL(t, t.TempDir(), "crashing.jsonl",
		`{"session":"s1","time":"2026-03-05T10:00:00+08:00","role":"user","text":"we chose Kyoto for the May trip"}`,
		`{"session":"s1","time":"2026-03-05T10:01:00+08:00","role":"assistant","text":"noted: Kyoto in May"}`,
		`{"session":"s2","time":"2026-03-06T10:00:00+08:00","role":"user","text":"this one makes the plugin CRASH"}`,
	)
	res, err := e.IngestFile(t.Context(), file, engine.FileOptions{})
	if err != nil {
		t.Fatalf("a crashing extractor failed the ingest: %v", err)
	}
	if res.Added != 3 || len(res.ExtractFailures) != 1 || res.ExtractFailures[0].Extractor != "faulty" ||
		!strings.Contains(res.ExtractFailures[0].Error, "crashed during the call") {
		t.Fatalf("result %+v", res)
	}
	st, _ := e.Stats(t.Context())
	if st.Messages != 3 || st.PendingExtractions != 1 {
		t.Fatalf("stats %+v, want 3 messages and 1 pending extraction", st)
	}
	r, err := e.RetryExtractions(t.Context(), 0)
	if err != nil || r.Retried != 1 || r.Done != 0 || r.Left != 1 {
		t.Fatalf("retry: %+v %v", r, err)
	}
	hits, err := e.Recall(t.Context(), core.Query{Text: "Kyoto trip"})
	if err != nil || len(hits.Hits) == 0 {
		t.Fatalf("recall: %+v %v", hits, err)
	}
	if m := hits.Hits[0].Memories; len(m) != 1 || m[0].Extractor != "faulty" || m[0].Type != "note" {
		t.Errorf("memories = %+v, want one note from the faulty extractor (restarted)", m)
	}
}
