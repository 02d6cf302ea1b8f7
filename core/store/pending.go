package store

import "fmt"

// Deferred extraction: when an extractor fails on a chunk (a model that is
// down, a bad answer), the chunk is stored without that extractor's
// memories, its record lists the extractor in PendingExtract, and its id
// goes into this bucket, created on first write, so that the engine can
// retry later without scanning every chunk:
//
//	pendx   chunk id → nothing
var bPendingExtract = []byte("pendx")

// MarkPendingExtract records that chunk id has extractions to retry, or,
// with pending false, that it has none.
func (t *Tx) MarkPendingExtract(id string, pending bool) error {
	if !pending {
		if b := t.b(bPendingExtract); b != nil {
			return b.Delete([]byte(id))
		}
		return nil
	}
	b, err := t.tx.CreateBucketIfNotExists(bPendingExtract)
	if err != nil {
		return fmt.Errorf("creating bucket %s: %w", bPendingExtract, err)
	}
	return b.Put([]byte(id), nil)
}

// PendingExtracts returns up to limit ids of chunks with extractions to
// retry (all with limit <= 0), and how many there are in all.
func (t *Tx) PendingExtracts(limit int) (ids []string, total int) {
	b := t.b(bPendingExtract)
	if b == nil {
		return nil, 0
	}
	total = b.KeyN()
	c := b.Cursor()
	for k, _ := c.First(); k != nil && (limit <= 0 || len(ids) < limit); k, _ = c.Next() {
		ids = append(ids, string(k))
	}
	return ids, total
}
