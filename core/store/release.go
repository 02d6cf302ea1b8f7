package store

// ReleaseMapped lets this process's resident set drop every page of the
// store's memory map, as [Tx.ReleaseVectors] does for a few: a bulk ingest
// calls it between its phases, since the pages its writes and
// reads mapped would otherwise stay resident beside the heap of the next
// phase. The pages stay in the page cache, and what is read again is
// mapped again; values that transactions still hold stay valid. It may
// run beside other transactions, from another goroutine (a staged ingest
// calls it every 100 ms): it is a short read transaction, so a
// commit that must grow the map waits for it, never the other way round.
// It does nothing in a KV ([OpenKV]) or off Linux.
func (s *Store) ReleaseMapped() {
	s.View(func(tx *Tx) error {
		tx.releaseMapped()
		return nil
	})
}

// releaseMapped lets the resident set drop the pages of the store's map,
// from inside a transaction, read or write: a write transaction's
// changes are on the heap until it commits, and the map's pages, which
// stay in the page cache, are what the file holds. The pages of records
// a write transaction has changed are touched again at its commit, so
// it pays only where a transaction reads much and changes little.
func (t *Tx) releaseMapped() {
	if bt, ok := t.tx.(boltTx); ok {
		releaseMapped(bt.tx.DB().Info().Data, bt.tx.Size())
	}
}
