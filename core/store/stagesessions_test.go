package store

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// mergeRun merges a stage's run whole and removes its file.
func mergeRun(t *testing.T, s *Store, run *StageRun) {
	t.Helper()
	for done := false; !done; {
		if err := s.Update(func(tx *Tx) (err error) { done, err = tx.MergeStageRun(run, 100); return err }); err != nil {
			t.Fatal(err)
		}
	}
	if err := run.Remove(); err != nil {
		t.Fatal(err)
	}
}

// writeSessions runs WriteStagedSessions with a small limit, at most
// steps transactions (all of them for steps < 0), and returns how many
// it took.
func writeSessions(t *testing.T, s *Store, info *StageInfo, steps int) int {
	t.Helper()
	var after []byte
	n := 0
	for first := true; (first || after != nil) && (steps < 0 || n < steps); first = false {
		if err := s.Update(func(tx *Tx) (err error) { after, err = tx.WriteStagedSessions(info, after, 1); return err }); err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// visible returns what readers see of the sessions: their records, their
// chunk lists and the dirty queue's sessions.
func visible(t *testing.T, s *Store) (sessions map[string]Session, chunks map[string][]string, dirty [][2]string) {
	t.Helper()
	sessions, chunks = map[string]Session{}, map[string][]string{}
	err := s.View(func(tx *Tx) error {
		dirty, _ = tx.DirtySessions()
		return tx.ForEachSession(func(ss *Session) error {
			got, err := tx.Session(ss.NS, ss.Session)
			if err != nil || got == nil {
				return fmt.Errorf("Session(%q) = %v, %v, but ForEachSession lists it", ss.Session, got, err)
			}
			sessions[ss.Session] = *ss
			chunks[ss.Session] = tx.SessionChunkIDs(ss.NS, ss.Session)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return sessions, chunks, dirty
}

// TestWriteStagedSessions checks that a stage's sessions written before
// its publication stay hidden until it, and that the published store,
// once swept, is the one a publication that writes them itself makes.
func TestWriteStagedSessions(t *testing.T) {
	// The reference: sessions written by the publication.
	ref := openTest(t)
	info, run := stageWithRun(t, ref, homeRun)
	mergeRun(t, ref, run)
	if err := ref.Update(func(tx *Tx) error { _, err := tx.PublishStage(info, nil); return err }); err != nil {
		t.Fatal(err)
	}
	wantSessions, wantChunks, wantDirty := visible(t, ref)
	if len(wantSessions) != 3 || len(wantDirty) != 3 {
		t.Fatalf("the reference publication shows %d sessions and %d dirty, want 3 and 3", len(wantSessions), len(wantDirty))
	}

	s := openTest(t)
	info, run = stageWithRun(t, s, homeRun)
	mergeRun(t, s, run)
	if steps := writeSessions(t, s, info, -1); steps < 3 {
		t.Errorf("the sessions were written in %d transactions, want one per session with a limit of 1 byte", steps)
	}
	if !info.Sessions {
		t.Error("the stage's record does not say its sessions are written")
	}
	// Written but hidden.
	if got, chunks, dirty := visible(t, s); len(got)+len(chunks)+len(dirty) > 0 {
		t.Errorf("before the publication readers see sessions %v and dirty %v", slices.Sorted(maps.Keys(got)), dirty)
	}
	s.View(func(tx *Tx) error {
		if ids := tx.SessionChunkIDs("n", "s1"); len(ids) > 0 {
			t.Errorf("before the publication s1 lists chunks %q", ids)
		}
		if rec, _ := tx.sessionRecord("n", "s1"); rec == nil || rec.Stage != info.ID {
			t.Errorf("the record of s1 before the publication is %+v, want one marked with stage %s", rec, info.ID)
		}
		return nil
	})

	if err := s.Update(func(tx *Tx) error { _, err := tx.PublishStage(info, nil); return err }); err != nil {
		t.Fatal(err)
	}
	var closed []string
	s.View(func(tx *Tx) error { closed = tx.ClosedStages(); return nil })
	if !slices.Equal(closed, []string{info.ID}) {
		t.Errorf("closed stages after the publication: %q, want [%s]", closed, info.ID)
	}
	check := func(when string) {
		gotSessions, gotChunks, gotDirty := visible(t, s)
		for k, v := range gotSessions {
			v.Stage = "" // the mark, until the sweep
			gotSessions[k] = v
		}
		if diff := gocmp.Diff(wantSessions, gotSessions); diff != "" {
			t.Errorf("sessions %s differ from the reference (-want +got):\n%s", when, diff)
		}
		if diff := gocmp.Diff(wantChunks, gotChunks); diff != "" {
			t.Errorf("chunk lists %s differ from the reference (-want +got):\n%s", when, diff)
		}
		if diff := gocmp.Diff(wantDirty, gotDirty); diff != "" {
			t.Errorf("dirty sessions %s differ from the reference (-want +got):\n%s", when, diff)
		}
	}
	check("after the publication")

	// The sweep, a key at a time, leaves the same store and no marks.
	sweeps := 0
	for done := false; !done; sweeps++ {
		if err := s.Update(func(tx *Tx) (err error) { done, err = tx.SweepStage(info.ID, 1); return err }); err != nil {
			t.Fatal(err)
		}
	}
	if sweeps < 2 {
		t.Errorf("the sweep took %d transactions with a limit of 1, want several", sweeps)
	}
	check("after the sweep")
	s.View(func(tx *Tx) error {
		if ids := tx.ClosedStages(); len(ids) > 0 {
			t.Errorf("closed stages after the sweep: %q", ids)
		}
		if tx.tx.Bucket(stageBucketName(info.ID)) != nil {
			t.Error("the stage's bucket survived the sweep")
		}
		return tx.ForEachSession(func(ss *Session) error {
			if ss.Stage != "" {
				t.Errorf("session %s still carries the mark of stage %s", ss.Session, ss.Stage)
			}
			return nil
		})
	})
	if err := s.Update(func(tx *Tx) error { _, err := tx.SweepStage("99", 1); return err }); err != nil {
		t.Errorf("sweeping a stage that is gone: %v", err)
	}
}

// TestSweepOpenStage checks that an open stage cannot be swept.
func TestSweepOpenStage(t *testing.T) {
	s := openTest(t)
	info, _ := stageWithRun(t, s, homeRun)
	if err := s.Update(func(tx *Tx) error { _, err := tx.SweepStage(info.ID, 10); return err }); err == nil {
		t.Error("an open stage was swept")
	}
}

// TestDiscardStageWithSessions checks that discarding a stage whose
// sessions were written, in part or whole (a crash or an error before the
// publication), leaves the store as it was before the stage.
func TestDiscardStageWithSessions(t *testing.T) {
	all := [][]byte{bMsgs, bMsgIDs, bChunks, bChunkKeys, bSessChunks, bSessions, bVecTime, bVecKeys, bVecQ, bSrcMsgs, bMsgSrcs, bOutbox, bDirty}
	for _, steps := range []int{1, 2, -1} {
		t.Run(fmt.Sprintf("write-steps=%d", steps), func(t *testing.T) {
			s := openTest(t)
			before := dumpBuckets(t, s, all...)
			info, run := stageWithRun(t, s, homeRun)
			mergeRun(t, s, run)
			writeSessions(t, s, info, steps)
			for done := false; !done; {
				if err := s.Update(func(tx *Tx) (err error) { done, err = tx.DiscardStage(info, 3); return err }); err != nil {
					t.Fatal(err)
				}
			}
			if diff := gocmp.Diff(before, dumpBuckets(t, s, all...)); diff != "" {
				t.Errorf("the store after discarding the stage differs (-before +after):\n%s", diff)
			}
		})
	}
}

// TestSweepStageSessionsPerCall checks that one call of SweepStage
// rewrites at most sweepSessions session records, however high its
// limit, and that the sweep still ends with no marks and no bucket.
func TestSweepStageSessionsPerCall(t *testing.T) {
	for _, tc := range []struct{ per, minCalls int }{
		{per: 1, minCalls: 3},
		{per: 2, minCalls: 2},
		{per: 1024, minCalls: 1},
	} {
		t.Run(fmt.Sprintf("per=%d", tc.per), func(t *testing.T) {
			defer func(old int) { sweepSessions = old }(sweepSessions)
			sweepSessions = tc.per
			s := openTest(t)
			info, run := stageWithRun(t, s, homeRun)
			mergeRun(t, s, run)
			writeSessions(t, s, info, -1)
			if err := s.Update(func(tx *Tx) error { _, err := tx.PublishStage(info, nil); return err }); err != nil {
				t.Fatal(err)
			}
			marked := func() int {
				n := 0
				s.View(func(tx *Tx) error {
					return tx.ForEachSession(func(ss *Session) error {
						if ss.Stage == info.ID {
							n++
						}
						return nil
					})
				})
				return n
			}
			if n := marked(); n != 3 {
				t.Fatalf("%d sessions carry the stage's mark after the publication, want 3", n)
			}
			calls := 0
			for done := false; !done; calls++ {
				before := marked()
				if err := s.Update(func(tx *Tx) (err error) { done, err = tx.SweepStage(info.ID, 1000); return err }); err != nil {
					t.Fatal(err)
				}
				if cleared := before - marked(); cleared > tc.per {
					t.Errorf("call %d took the mark off %d sessions, want at most %d", calls+1, cleared, tc.per)
				}
			}
			if calls < tc.minCalls {
				t.Errorf("the sweep took %d calls, want at least %d", calls, tc.minCalls)
			}
			if n := marked(); n != 0 {
				t.Errorf("%d sessions still carry the stage's mark after the sweep", n)
			}
			s.View(func(tx *Tx) error {
				if tx.tx.Bucket(stageBucketName(info.ID)) != nil {
					t.Error("the stage's bucket survived the sweep")
				}
				return nil
			})
		})
	}
}
