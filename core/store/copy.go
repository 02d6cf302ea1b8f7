package store

import "fmt"

// CopyOptions tune [Store.CopyTo].
type CopyOptions struct {
	// Skip, when set, leaves out the buckets it returns true for.
	Skip func(bucket string) bool
	// Then, when set, runs in the destination's transaction after the
	// copy.
	Then func(*Tx) error
	// Progress, when set, is called after each bucket with the keys
	// copied so far.
	Progress func(bucket string, keys int)
}

// Buckets that hold transcripts and archives, which a home keeps as
// files instead (see transcripts.go).
const (
	TranscriptsBucket = "transcripts"
	ArchivesBucket    = "archives"
)

// CopyTo copies every bucket of s, key for key, into dst, which must hold
// no messages and no chunks: the whole store moves between backends (a
// home's bbolt file and a shared KV) with its ids, anchors, generations
// and queues as they are. It reads one snapshot of s and writes dst in one
// transaction, so dst ends with all of s or, on error, as it was. It
// returns the number of keys copied.
func (s *Store) CopyTo(dst *Store, o CopyOptions) (int, error) {
	n := 0
	progress := o.Progress
	err := s.View(func(src *Tx) error {
		return dst.Update(func(out *Tx) error {
			if chunks, msgs := out.Counts(); chunks+msgs > 0 {
				return fmt.Errorf("copying the store: the destination is not empty (%d chunks, %d messages)", chunks, msgs)
			}
			err := src.tx.ForEachBucket(func(name []byte) error {
				if o.Skip != nil && o.Skip(string(name)) {
					return nil
				}
				b, err := out.tx.CreateBucketIfNotExists(name)
				if err != nil {
					return fmt.Errorf("copying bucket %s: %w", name, err)
				}
				err = src.tx.Bucket(name).ForEach(func(k, v []byte) error {
					n++
					return b.Put(k, v)
				})
				if err != nil {
					return fmt.Errorf("copying bucket %s: %w", name, err)
				}
				if progress != nil {
					progress(string(name), n)
				}
				return nil
			})
			if err != nil || o.Then == nil {
				return err
			}
			return o.Then(out)
		})
	})
	return n, err
}

// MarkAllSessionsDirty queues every session's transcript to be written
// again, as after a copy into a backend that keeps transcripts elsewhere;
// with butSealed, not those of sealed sessions, whose transcripts are in
// their weeks' archives.
func (t *Tx) MarkAllSessionsDirty(butSealed bool) error {
	var sessions []*Session
	err := t.ForEachSession(func(s *Session) error {
		if butSealed {
			if rec, err := t.SealedSession(s.NS, s.Session); err != nil || rec != nil {
				return err
			}
		}
		sessions = append(sessions, s)
		return nil
	})
	if err != nil {
		return err
	}
	for _, s := range sessions {
		if err := t.MarkSessionDirty(s.NS, s.Session); err != nil {
			return err
		}
	}
	return nil
}
