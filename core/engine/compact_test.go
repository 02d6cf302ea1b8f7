package engine

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// lowCompactFloor lets the test corpora, a few hundred KB, count as
// worth compacting.
func lowCompactFloor(t *testing.T) {
	t.Helper()
	old := compactMinBytes
	compactMinBytes = 0
	t.Cleanup(func() { compactMinBytes = old })
}

// An ingest that grows the store by more than a quarter with ordinary
// writes ends by compacting it, unless storage.compact_after_ingest is
// off; a staged ingest writes its pages as full as a compaction would and
// its vectors in order, and is not compacted. The home reads
// the same either way, and the vectors then lie in one run.
func TestIngestCompactsWhenTheStoreGrew(t *testing.T) {
	lowCompactFloor(t)
	msgs := stagedCorpus()
	path := writeJSONL(t, t.TempDir(), "big.jsonl", msgs, "")
	tests := []struct {
		name    string
		on      bool
		batch   int
		compact bool
	}{
		{"staged, on", true, 50, false},
		{"one transaction, on", true, 1 << 20, true},
		{"one transaction, off", false, 1 << 20, false},
	}
	var want string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := openTest(t, func(c *core.Config) { c.Storage.CompactAfterIngest = new(tt.on) })
			res, err := e.IngestSource(t.Context(), path, SourceOptions{Location: time.UTC, BatchMessages: tt.batch})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Compaction != nil; got != tt.compact {
				t.Fatalf("compaction %+v, want one: %v", res.Compaction, tt.compact)
			}
			if res.Compaction != nil && (res.Compaction.After <= 0 || res.Compaction.Before <= 0) {
				t.Errorf("compaction %+v: want both sizes", res.Compaction)
			}
			now, compacted, err := e.st.DataSize()
			if err != nil {
				t.Fatal(err)
			}
			if (compacted > 0) != tt.compact || compacted > now {
				t.Errorf("store data size %d, compacted size %d; want a compacted size: %v", now, compacted, tt.compact)
			}
			got := logical(t, e)
			if want == "" {
				want = got
			} else if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the home reads differently (-first +this):\n%s", diff)
			}
			if tt.on {
				// Compacted, the vectors lie in one run; staged, in a run
				// per batch at most (each batch appends its vectors' pages).
				slack := 1
				if !tt.compact {
					slack = (len(msgs) + tt.batch - 1) / tt.batch
				}
				l, err := e.st.VectorLayout()
				if err != nil {
					t.Fatal(err)
				}
				if l.Windows > l.MinWindows+slack {
					t.Errorf("the vectors lie in %d windows of 64 KiB, want at most %d", l.Windows, l.MinWindows+slack)
				}
			}
			if tt.on && !tt.compact {
				// What a compaction would have saved: little.
				if _, err := e.st.CompactWith(t.Context(), store.CompactOptions{}); err != nil {
					t.Fatal(err)
				}
				after, _, err := e.st.DataSize()
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("a compaction takes the store's data from %d to %d bytes", now, after)
				if float64(after) < 0.9*float64(now) {
					t.Errorf("a compaction would take the store's data from %d to %d bytes: it was not dense", now, after)
				}
			}
			// A small ingest afterwards grows the store by far less than a
			// quarter: no compaction.
			more := []core.Message{msg("later", time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC), core.RoleUser, "one more message about the garden")}
			r2, err := e.Ingest(t.Context(), more)
			if err != nil {
				t.Fatal(err)
			}
			if r2.Compaction != nil {
				t.Errorf("a one-message ingest compacted the store: %+v", r2.Compaction)
			}
		})
	}
}

// Another engine with the home open (AccessShared, as a second process
// would hold it) keeps working while a writer ingests and compacts, and
// then reads the new file.
func TestCompactionWithASecondEngine(t *testing.T) {
	lowCompactFloor(t)
	home := t.TempDir()
	cfg := core.Config{Storage: core.StorageConfig{Home: home}}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	opts := Options{Logf: t.Logf, Access: AccessShared, LockWait: 20 * time.Second}
	w, err := openWith(t, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Ingest(t.Context(), []core.Message{msg("first", at, core.RoleUser, "the staging proxy listens on port 8443")}); err != nil {
		t.Fatal(err)
	}
	r, err := openWith(t, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	var stop atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			res, err := r.Recall(t.Context(), core.Query{Text: "staging proxy port", TopK: 3})
			if err == nil && len(res.Hits) == 0 {
				err = errNoHit
			}
			if err != nil {
				errs <- err
				return
			}
			reads.Add(1)
		}
	}()
	path := writeJSONL(t, t.TempDir(), "big.jsonl", stagedCorpus(), "")
	// One transaction: a staged ingest writes a dense store, not compacted.
	res, err := w.IngestSource(t.Context(), path, SourceOptions{Location: time.UTC, BatchMessages: 1 << 20})
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Compaction == nil {
		t.Fatalf("the ingest did not compact the store; the test proves nothing")
	}
	t.Logf("the second engine recalled %d times during the ingest", reads.Load())
	close(errs)
	for err := range errs {
		t.Errorf("the second engine's recall during the ingest: %v", err)
	}
	// The second engine reads the compacted file: what the ingest added,
	// and the same as the writer.
	want, err := w.Recall(t.Context(), core.Query{Text: "deploy budget", TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Recall(t.Context(), core.Query{Text: "deploy budget", TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Hits) == 0 {
		t.Fatalf("the writer finds nothing the ingest added")
	}
	if diff := cmp.Diff(hitIDs(want.Hits), hitIDs(got.Hits)); diff != "" {
		t.Errorf("the second engine's recall after the compaction differs from the writer's (-writer +second):\n%s", diff)
	}
	// And it can write to the compacted home in its turn.
	if _, err := r.Ingest(t.Context(), []core.Message{msg("second", at.Add(time.Hour), core.RoleUser, "written by the second engine")}); err != nil {
		t.Errorf("the second engine's ingest after the compaction: %v", err)
	}
}

var errNoHit = errorString("the recall found nothing")

type errorString string

func (e errorString) Error() string { return string(e) }

func hitIDs(hits []core.Hit) []string {
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	return ids
}
