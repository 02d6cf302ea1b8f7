package engine

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/internal/synth"
)

// TestContextPartsIndexLikeJoinedContents checks that the index the
// engine builds, with each chunk's context given as its neighbours' text
// and reply parts (analysed once per batch), scores every search exactly
// as an index whose ctx field holds the neighbours' contents joined by
// newlines, the way it was built before.
func TestContextPartsIndexLikeJoinedContents(t *testing.T) {
	e := openTest(t)
	ingest(t, e, synth.Corpus(synth.Options{Seed: 11, Pairs: 400, PerSession: 9, Start: time.Date(2026, 2, 2, 9, 0, 0, 0, time.UTC), Span: 30 * 24 * time.Hour}))
	old, err := index.Open(filepath.Join(t.TempDir(), "old"))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	var docs []index.Doc
	err = e.st.View(func(tx *store.Tx) error {
		return tx.ForEachChunk(func(c *store.Chunk) error {
			d, _, err := e.docWith(tx, c, nil)
			if err != nil {
				return err
			}
			var ctx []string
			for _, id := range []string{c.Prev, c.Next} {
				if id == "" {
					continue
				}
				n, err := tx.Chunk(id)
				if err != nil {
					return err
				}
				nc, err := e.hydrate(tx, n)
				if err != nil {
					return err
				}
				ctx = append(ctx, nc.Content())
			}
			d.Context = strings.Join(ctx, "\n")
			docs = append(docs, d)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Apply(docs, nil, 1); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{synth.Word(1) + " " + synth.Word(20), synth.Word(300), synth.ZhWord(2) + synth.ZhWord(9), "user assistant"} {
		s := index.Search{Text: q, ContextBoost: 0.3, ReplyBoost: 0.6, Size: 50}
		want, err := old.Search(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.ix.Search(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			t.Fatalf("%q finds nothing", q)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (-joined contents +parts):\n%s", q, diff)
		}
	}
}
