package store

import (
	"slices"
	"testing"
	"time"
)

// TestStageIndexed checks what a stage the engine indexes as it goes
// changes: its chunks can be listed in pages (to remove them from the
// index), and its publication queues none of them for the index, where
// an ordinary stage's queues each.
func TestStageIndexed(t *testing.T) {
	for _, tt := range []struct {
		name    string
		indexed bool
		outbox  []string
	}{
		{"ordinary", false, []string{"c1", "c2", "c3"}},
		{"indexed", true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			var info *StageInfo
			ids := []string{"c1", "c2", "c3"}
			err := s.Update(func(tx *Tx) error {
				var err error
				if info, err = tx.BeginStage("/src", "digest"); err != nil {
					return err
				}
				info.Indexed = tt.indexed
				for i, id := range ids {
					c := &Chunk{ID: id, NS: "n", Session: "s", Time: at(i).Format(time.RFC3339Nano)}
					if err := tx.PutStagedChunk(info.ID, c, nil, at(i)); err != nil {
						return err
					}
				}
				if err := tx.PutStagedSession(info.ID, &StagedSession{Session: Session{NS: "n", Session: "s"}, IDs: ids}); err != nil {
					return err
				}
				return tx.SaveStage(info)
			})
			if err != nil {
				t.Fatal(err)
			}
			s.View(func(tx *Tx) error {
				stages, err := tx.Stages()
				if err != nil || len(stages) != 1 || stages[0].Indexed != tt.indexed {
					t.Errorf("Stages = %+v, %v; want one with Indexed %v", stages, err, tt.indexed)
				}
				var pages [][]string
				for after := ""; ; {
					page := tx.StageChunks(info, after, 2)
					if len(page) == 0 {
						break
					}
					pages = append(pages, page)
					after = page[len(page)-1]
				}
				if want := [][]string{{"c1", "c2"}, {"c3"}}; !slices.EqualFunc(pages, want, slices.Equal) {
					t.Errorf("StageChunks in pages of 2 = %q, want %q", pages, want)
				}
				return nil
			})
			if err := s.Update(func(tx *Tx) error { _, err := tx.PublishStage(info, nil); return err }); err != nil {
				t.Fatal(err)
			}
			s.View(func(tx *Tx) error {
				if got := tx.Outbox(); !slices.Equal(got, tt.outbox) {
					t.Errorf("outbox after publish = %q, want %q", got, tt.outbox)
				}
				if got := tx.StageChunks(info, "", 10); got != nil {
					t.Errorf("StageChunks of a published stage = %q", got)
				}
				if n, _ := tx.Counts(); n != 3 {
					t.Errorf("chunks counted = %d, want 3", n)
				}
				return nil
			})
		})
	}
}
