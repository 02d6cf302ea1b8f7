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
				for after := []byte(nil); ; {
					var page []string
					if page, after = tx.StageChunks(info, after, 2); len(page) == 0 {
						break
					}
					pages = append(pages, page)
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
				if got, _ := tx.StageChunks(info, nil, 10); got != nil {
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

// TestStagedChunkID reads the chunk id out of the keys of a stage's
// chunk set, of both forms, and out of nothing else.
func TestStagedChunkID(t *testing.T) {
	vk := VecKey("work", at(3), "k7f2a1")
	for _, tt := range []struct {
		name string
		key  []byte
		want string
	}{
		{"vector key", append([]byte("t\x00"), vk...), "k7f2a1"},
		{"default namespace", append([]byte("t\x00"), VecKey("", at(3), "a3f2c7")...), "a3f2c7"},
		{"version 7", []byte("c\x00k7f2a1"), "k7f2a1"},
		{"no id", append([]byte("t\x00"), VecKey("work", at(3), "")...), ""},
		{"no time", []byte("t\x00work\x00abc"), ""},
		{"no namespace end", []byte("t\x00work"), ""},
		{"a staged session", []byte("s\x00work\x00sess"), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(StagedChunkID(tt.key)); got != tt.want {
				t.Errorf("StagedChunkID(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}
