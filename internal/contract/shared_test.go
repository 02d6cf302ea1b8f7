package contract

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/plugins/embedder/hash"
	"github.com/huimemory/huimemory/plugins/host"
)

// Two engines opened on one configuration are two servers on one
// database; on the embedded backend, two engines with AccessShared on one
// home.

func TestTwoEnginesSeeEachOthersWrites(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		cfg := utc(config(t))
		a, b := open(t, cfg), open(t, cfg)
		ingest(t, a, bilingual(""))
		// b has read (and cached) what there was before a writes again.
		if !finds(t, b, "", "Kyoto temples", "Kyoto", 3) {
			t.Fatal("b does not find a's first ingest")
		}
		bBefore := chains(t, b, "")
		at := time.Date(2026, 3, 6, 2, 5, 0, 0, time.UTC) // s2's week, after its exchange
		news := []core.Message{
			{Session: "s2", Time: at, Role: core.RoleUser, Text: "which vaccinations do I need for the zanzibar trip?"},
			{Session: "s2", Time: at.Add(time.Minute), Role: core.RoleAssistant, Text: "Yellow fever, if you come through Kenya."},
		}
		ingest(t, a, news)
		// b finds a's new chunk after a's ingest returned: by its words,
		// by id, and in the chain it was appended to.
		res := recall(t, b, core.Query{Text: "zanzibar vaccinations", TopK: 3, NoTime: true})
		if len(res.Hits) == 0 || res.Hits[0].Messages[0].Text != news[0].Text {
			t.Fatalf("b's recall of a's new chunk: %q", texts(res.Hits))
		}
		newID := res.Hits[0].ID
		if res.Hits[0].Scores.Vector == 0 {
			t.Errorf("b's hit on a's new chunk has no vector score: %+v", res.Hits[0].Scores)
		}
		bAfter := chains(t, b, "")
		if s2 := bAfter["s2"]; len(s2) != 2 || s2[0] != bBefore["s2"][0] || s2[1] != newID {
			t.Errorf("s2 on b: %v, was %v; want %s appended", s2, bBefore["s2"], newID)
		}
		if diff := cmp.Diff(chains(t, a, ""), bAfter); diff != "" {
			t.Errorf("a and b see different chains (-a +b):\n%s", diff)
		}
		// And the other way round, with a late message that re-links s1.
		late := core.Message{Session: "s1", Time: time.Date(2026, 3, 5, 1, 0, 0, 0, time.UTC), Role: core.RoleUser, Text: "before anything else: the quokka photos"}
		ingest(t, b, []core.Message{late})
		if !finds(t, a, "", "quokka photos", "quokka", 3) {
			t.Error("a does not find b's late message")
		}
		if diff := cmp.Diff(chains(t, a, ""), chains(t, b, "")); diff != "" {
			t.Errorf("a and b see different chains after b's write (-a +b):\n%s", diff)
		}
		if diff := cmp.Diff(stats(t, a), stats(t, b)); diff != "" {
			t.Errorf("a and b count differently (-a +b):\n%s", diff)
		}
		// A forget on one is seen by the other.
		if _, err := b.Forget(t.Context(), engine.ForgetOptions{ID: newID}); err != nil {
			t.Fatal(err)
		}
		if finds(t, a, "", "zanzibar vaccinations", "zanzibar", 10) {
			t.Error("a still finds the chunk b forgot")
		}
		if _, err := a.RecallByID(t.Context(), "", newID, 0); err == nil {
			t.Errorf("a's RecallByID finds the chunk b forgot")
		}
		if out, _ := export(t, a, engine.ExportOptions{}); strings.Contains(out, "zanzibar") {
			t.Error("a's export holds the chunk b forgot")
		}
		chains(t, a, "")
	})
}

// TestPeerSeesNewVectorsAtOnce: a chunk that engine a wrote is found by
// engine b's next recall through its vector alone, even when b has the
// chunk's week cached. Each round's query shares no indexed term with its
// chunk (the Chinese query's bigram, such as 甲乙, is not in the text
// 甲和乙, whose single characters the hash embedder still shares), so
// only the vector side can find it.
func TestPeerSeesNewVectorsAtOnce(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		cfg := utc(config(t))
		a, b := open(t, cfg), open(t, cfg)
		ingest(t, a, bilingual(""))
		at := time.Date(2026, 3, 6, 3, 0, 0, 0, time.UTC) // s2's week
		// Words that the BM25 index drops as stop words and the hash
		// embedder keeps: only the vector scan can find their chunks.
		words := strings.Fields("above below again against because between both down during each few further more most nor off once only other ought own same")
		for r := 0; r+1 < len(words); r += 2 {
			// b caches the week's vectors.
			recall(t, b, core.Query{Text: "passport", TopK: 3, NoTime: true})
			x, y := words[r], words[r+1]
			s := fmt.Sprintf("v%02d", r/2)
			ingest(t, a, []core.Message{{Session: s, Time: at.Add(time.Duration(r) * time.Minute), Role: core.RoleUser, Text: x + ", " + y}})
			res := recall(t, b, core.Query{Text: x + " " + y, TopK: 3, NoTime: true})
			if len(res.Hits) == 0 || res.Hits[0].Session != s || res.Hits[0].Scores.BM25 != 0 || res.Hits[0].Scores.Vector == 0 {
				var got []string
				for _, h := range res.Hits {
					got = append(got, fmt.Sprintf("%s %s %+v", h.Session, h.ID, h.Scores))
				}
				t.Errorf("round %d: b's recall of %s: %v; want the chunk of %s by its vector only", r/2, x+y, got, s)
			}
		}
	})
}

// TestConcurrentForgetAndIngest: engine a appends to four sessions while
// engine b forgets chunks of the same sessions. Whatever the order, every
// message ingested and not forgotten is there once, and every chain is
// intact.
func TestConcurrentForgetAndIngest(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		cfg := utc(config(t))
		a, b := open(t, cfg), open(t, cfg)
		start := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
		batch := func(n int) []core.Message {
			var msgs []core.Message
			for s := range 4 {
				at := start.Add(time.Duration(n*4+s) * time.Minute)
				sess := fmt.Sprintf("s%d", s)
				msgs = append(msgs,
					core.Message{Session: sess, Time: at, Role: core.RoleUser, Text: fmt.Sprintf("batch %d session %s question", n, sess)},
					core.Message{Session: sess, Time: at.Add(10 * time.Second), Role: core.RoleAssistant, Text: fmt.Sprintf("batch %d session %s answer", n, sess)})
			}
			return msgs
		}
		ingest(t, a, batch(0))
		const batches = 8
		var added, forgotten int
		added = 8
		done := make(chan error, 1)
		go func() {
			for n := 1; n < batches; n++ {
				res, err := a.Ingest(t.Context(), batch(n))
				if err != nil {
					done <- fmt.Errorf("batch %d: %w", n, err)
					return
				}
				added += res.Added
			}
			done <- nil
		}()
		var errs []error
		for round := 0; round < 2*batches; round++ {
			turns, err := b.SessionTurns(t.Context(), "", fmt.Sprintf("s%d", round%4), 0)
			if err != nil || len(turns) == 0 {
				continue // the session may just have been emptied
			}
			res, err := b.Forget(t.Context(), engine.ForgetOptions{ID: turns[len(turns)/2].ID})
			switch {
			case errors.Is(err, core.ErrNotFound): // re-cut meanwhile
			case err != nil:
				errs = append(errs, fmt.Errorf("forget round %d: %w", round, err))
			default:
				forgotten += len(res.Messages)
			}
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		for _, err := range errs {
			t.Error(err)
		}
		if forgotten == 0 {
			t.Fatal("nothing was forgotten")
		}
		for i, e := range []*engine.Engine{a, b} {
			st := stats(t, e)
			out, n := export(t, e, engine.ExportOptions{})
			if st.Messages != added-forgotten || n != st.Messages || st.IndexDocs != uint64(st.Chunks) || st.Pending != 0 {
				t.Errorf("engine %d: stats %+v, %d exported; want %d added - %d forgotten, the index in step", i, st, n, added, forgotten)
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if strings.Count(out, line) != 1 {
					t.Errorf("engine %d exports %s more than once", i, line)
				}
			}
		}
		if diff := cmp.Diff(chains(t, a, ""), chains(t, b, "")); diff != "" {
			t.Errorf("the engines see different chains (-a +b):\n%s", diff)
		}
	})
}

// TestConcurrentSameSources: two engines ingest the same files at once,
// and then the same changed file at once: each message is stored once,
// and the sources end tracked with their last content.
func TestConcurrentSameSources(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		cfg := utc(config(t))
		engines := []*engine.Engine{open(t, cfg), open(t, cfg)}
		dir := t.TempDir()
		var paths []string
		for i := range 4 {
			var b strings.Builder
			for j := range 10 {
				fmt.Fprintf(&b, `{"session":"f%d","time":"2026-07-%02dT09:%02d:00Z","role":"user","text":"file %d line %d"}`+"\n", i%2, 1+i, j, i, j)
			}
			p := filepath.Join(dir, fmt.Sprintf("f%d.jsonl", i))
			writeFile(t, p, b.String())
			paths = append(paths, p)
		}
		run := func() {
			var wg sync.WaitGroup
			errs := make(chan error, 2*len(paths))
			for i, e := range engines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := range paths {
						p := paths[(k+i*len(paths)/2)%len(paths)] // the engines start at different files
						if _, err := e.IngestSource(t.Context(), p, engine.SourceOptions{Location: time.UTC}); err != nil {
							errs <- fmt.Errorf("IngestSource(%s): %w", p, err)
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		}
		run()
		// Change two files and ingest them all again, from both at once.
		for _, p := range paths[:2] {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, p, strings.Replace(string(data), " line 3", " line three, edited", 1))
		}
		run()
		for i, e := range engines {
			out, n := export(t, e, engine.ExportOptions{})
			if n != 40 || strings.Count(out, "edited") != 2 || strings.Contains(out, "file 0 line 3\"") || strings.Contains(out, "file 1 line 3\"") {
				t.Errorf("engine %d exports %d messages:\n%s", i, n, out)
			}
			srcs, err := e.Sources(t.Context(), dir)
			if err != nil || len(srcs) != 4 {
				t.Errorf("engine %d tracks %v, %v", i, srcs, err)
			}
			if st := stats(t, e); st.Messages != 40 || st.IndexDocs != uint64(st.Chunks) {
				t.Errorf("engine %d stats %+v", i, st)
			}
		}
		if diff := cmp.Diff(chains(t, engines[0], ""), chains(t, engines[1], "")); diff != "" {
			t.Errorf("the engines see different chains (-a +b):\n%s", diff)
		}
	})
}

func TestConcurrentWritersOnTwoEngines(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		cfg := utc(config(t))
		engines := []*engine.Engine{open(t, cfg), open(t, cfg)}
		const (
			writers = 4
			batches = 6
			perSess = 3 // exchanges per batch and session
		)
		start := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
		// Writer w writes batches into its own session "own-w", into the
		// session "shared" that every writer writes, and, for every other
		// batch, into "ns-shared" of namespace "team". Times interleave, so
		// most writes to the shared sessions land between stored
		// messages.
		batch := func(w, b int) []core.Message {
			var msgs []core.Message
			add := func(ns, s string, i int) {
				at := start.Add(time.Duration(i*writers+w) * time.Minute)
				msgs = append(msgs,
					core.Message{Namespace: ns, Session: s, Time: at, Role: core.RoleUser, Text: fmt.Sprintf("writer %d batch %d message %d in %s asks about topic%d", w, b, i, s, w*100+i)},
					core.Message{Namespace: ns, Session: s, Time: at.Add(10 * time.Second), Role: core.RoleAssistant, Text: fmt.Sprintf("reply to writer %d batch %d message %d in %s", w, b, i, s)})
			}
			for i := range perSess {
				// Later batches go back in time for the shared session.
				add("", fmt.Sprintf("own-%d", w), b*perSess+i)
				add("", "shared", (batches-b)*perSess+i)
				if b%2 == 0 {
					add("team", "ns-shared", b*perSess+i)
				}
			}
			return msgs
		}
		var all []core.Message
		for w := range writers {
			for b := range batches {
				all = append(all, batch(w, b)...)
			}
		}
		var wg sync.WaitGroup
		errs := make(chan error, writers*batches)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e := engines[w%2]
				for b := range batches {
					msgs := batch(w, b)
					res, err := e.Ingest(t.Context(), msgs)
					if err == nil && res.Added != len(msgs) {
						err = fmt.Errorf("writer %d batch %d: %d of %d added", w, b, res.Added, len(msgs))
					}
					if err != nil {
						errs <- fmt.Errorf("writer %d batch %d: %w", w, b, err)
						return
					}
					// Half the writers also write their previous batch
					// again, through the other engine: nothing is added.
					if w%2 == 1 && b > 0 {
						res, err := engines[(w+1)%2].Ingest(t.Context(), batch(w, b-1))
						if err == nil && res.Added != 0 {
							err = fmt.Errorf("a repeated batch added %d", res.Added)
						}
						if err != nil {
							errs <- fmt.Errorf("writer %d batch %d again: %w", w, b-1, err)
							return
						}
					}
				}
			}()
		}
		// Readers meanwhile, on both engines.
		stop := make(chan struct{})
		var rg sync.WaitGroup
		for _, e := range engines {
			rg.Add(1)
			go func() {
				defer rg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := e.Recall(t.Context(), core.Query{Text: "writer topic asks", TopK: 5, Context: 1, NoTime: true}); err != nil {
						errs <- fmt.Errorf("recall during the writes: %w", err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(stop)
		rg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if t.Failed() {
			return
		}
		// Every message is present once, seen from either engine.
		for i, e := range engines {
			out, n := export(t, e, engine.ExportOptions{All: true})
			if n != len(all) {
				t.Errorf("engine %d exports %d messages, want %d", i, n, len(all))
			}
			for _, m := range all {
				if c := strings.Count(out, `"text":"`+m.Text+`"`); c != 1 {
					t.Errorf("engine %d: %q is exported %d times", i, m.Text, c)
				}
			}
			st := stats(t, e)
			if st.Messages != len(all) || st.Sessions != writers+2 || st.Pending != 0 || st.IndexDocs != uint64(st.Chunks) || st.Chunks != len(all)/2 {
				t.Errorf("engine %d stats %+v, want %d messages in %d chunks of %d sessions, the index in step", i, st, len(all), len(all)/2, writers+2)
			}
		}
		// Every chain is intact, and both engines see the same chains.
		ca, cb := chains(t, engines[0], ""), chains(t, engines[1], "")
		if diff := cmp.Diff(ca, cb); diff != "" {
			t.Errorf("the engines see different chains (-a +b):\n%s", diff)
		}
		if diff := cmp.Diff(chains(t, engines[0], "team"), chains(t, engines[1], "team")); diff != "" {
			t.Errorf("the engines see different chains in team (-a +b):\n%s", diff)
		}
		if n := len(ca["shared"]); n != writers*batches*perSess {
			t.Errorf("shared has %d chunks, want %d", n, writers*batches*perSess)
		}
		// Each exchange is one chunk, found by its words on both engines.
		for _, w := range []int{0, writers - 1} {
			q := fmt.Sprintf("topic%d", w*100+5) // batch 1 of own-w, batch 5 of shared
			for i, e := range engines {
				res := recall(t, e, core.Query{Text: q, TopK: 20, NoTime: true})
				sessions := sessionsOf(res.Hits)
				if !slices.Contains(sessions, "shared") || !slices.Contains(sessions, fmt.Sprintf("own-%d", w)) {
					t.Errorf("engine %d: %s found in %v", i, q, sessions)
				}
			}
		}
		// A re-opened engine sees the same.
		if err := engines[0].Close(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(cb, chains(t, open(t, cfg), "")); diff != "" {
			t.Errorf("a re-opened engine sees other chains (-before +after):\n%s", diff)
		}
	})
}

// gateEmbedder is the hash embedder, except that a text containing
// "BLOCK" holds the embedding (and so the write it belongs to, with its
// writer lock) until gate is closed; entered is closed when it starts.
type gateEmbedder struct {
	core.Embedder
	entered, gate chan struct{}
}

func (g *gateEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	for _, t := range texts {
		if strings.Contains(t, "BLOCK") {
			close(g.entered)
			<-g.gate
			break
		}
	}
	return g.Embedder.Embed(ctx, texts)
}

// TestWriterWaitsThenGivesUp: while one engine writes, another engine's
// write waits storage.lock_wait, then fails with core.ErrLocked and
// writes nothing; reads go on meanwhile; once the first write is done the
// second goes through.
func TestWriterWaitsThenGivesUp(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		cfg := config(t)
		cfg.Plugins.Subprocess = false
		emb, err := hash.New(0)
		if err != nil {
			t.Fatal(err)
		}
		g := &gateEmbedder{Embedder: emb, entered: make(chan struct{}), gate: make(chan struct{})}
		a, err := host.Open(t.Context(), cfg, engine.Options{Embedder: g, Access: engine.AccessShared, LockWait: 10 * time.Second}, host.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		short := cfg
		short.Storage.LockWait = 300 * time.Millisecond
		b, err := host.Open(t.Context(), short, engine.Options{Access: engine.AccessShared, LockWait: short.Storage.LockWait}, host.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		msgs := chat("", "s1", 2, func(i int) string { return fmt.Sprintf("topic %d", i) })
		ingest(t, b, msgs[:2])
		done := make(chan error, 1)
		go func() {
			_, err := a.Ingest(context.Background(), []core.Message{{Session: "s2", Time: base, Role: core.RoleUser, Text: "BLOCK the writer"}})
			done <- err
		}()
		<-g.entered // a holds the writer lock now
		if _, err := b.Ingest(t.Context(), msgs[2:]); !errors.Is(err, core.ErrLocked) {
			t.Errorf("a write while another engine writes: %v; want ErrLocked after the wait", err)
		}
		if _, err := b.Recall(t.Context(), core.Query{Text: "topic", NoTime: true}); err != nil {
			t.Errorf("a read while another engine writes: %v", err)
		}
		if st, err := b.Stats(t.Context()); err != nil || st.Messages != 2 {
			t.Errorf("after the refused write: %d messages, %v; want the 2 of the first ingest", st.Messages, err)
		}
		close(g.gate)
		if err := <-done; err != nil {
			t.Fatalf("the blocked write: %v", err)
		}
		if _, err := b.Ingest(t.Context(), msgs[2:]); err != nil {
			t.Fatalf("the same write once the lock is free: %v", err)
		}
		if st, err := b.Stats(t.Context()); err != nil || st.Messages != 5 {
			t.Errorf("at the end: %d messages, %v; want 5", st.Messages, err)
		}
	})
}
