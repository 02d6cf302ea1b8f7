package index

// ReleaseMapped lets this process's resident set drop the pages of the
// index's segment files that it has mapped. Each persisted
// segment is a read-only shared memory map of its .zap file; a search or
// a merge that reads a segment leaves its pages resident, so a merge of
// the whole index into one segment kept every page of it mapped, and the
// process's peak grew with the index (258 MiB of 300 MB of JSONL); the
// engine calls it during [Index.Merge] and after each batch of a bulk
// ingest. The
// pages stay in the page cache; what is read again is mapped again, from
// there. The segments are those of a snapshot held for the call, so none
// is unmapped meanwhile; segments still in memory (not yet persisted) are
// heap and are left alone. It does nothing off Linux, and errors are
// ignored: it only saves memory.
func (x *Index) ReleaseMapped() {
	snap, err := x.snapshot()
	if err != nil {
		return
	}
	defer snap.Close()
	for _, seg := range snap.Segments() {
		// zap's file segments (every version) give their map as Data;
		// in-memory segments are another type.
		if f, ok := seg.Segment().(interface{ Data() []byte }); ok {
			releaseMapped(f.Data())
		}
	}
}
