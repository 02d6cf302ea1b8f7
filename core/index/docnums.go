package index

import (
	"encoding/binary"

	"github.com/blevesearch/bleve/v2/index/scorch"
	bindex "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// internalIDs returns the internal ids, in the snapshot r, of the chunks
// in ids that it holds; ids it does not hold are absent. It opens each
// segment's id dictionary once for all of ids, where bleve's
// IndexReader.InternalID opens every segment's dictionary for each id:
// with the dozen or more segments a server's group commits leave, that
// was a fifth of a loaded server's CPU. A scorch internal id is the
// segment's offset (the documents, deleted or not, of the segments before
// it) plus the document's number in its segment, big-endian.
func internalIDs(r bindex.IndexReader, ids []string) (map[string]bindex.IndexInternalID, error) {
	out := make(map[string]bindex.IndexInternalID, len(ids))
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		for _, id := range ids {
			in, err := r.InternalID(id)
			if err != nil {
				return nil, err
			}
			if len(in) > 0 {
				out[id] = in
			}
		}
		return out, nil
	}
	var (
		offset uint64
		pl     segment.PostingsList
		it     segment.PostingsIterator
		key    []byte
	)
	for _, ss := range snap.Segments() {
		seg := ss.Segment()
		if len(out) < len(ids) {
			dict, err := seg.Dictionary("_id")
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				if _, found := out[id]; found {
					continue
				}
				key = append(key[:0], id...)
				if pl, err = dict.PostingsList(key, ss.Deleted(), pl); err != nil {
					return nil, err
				}
				it = pl.Iterator(false, false, false, it)
				p, err := it.Next()
				if err != nil {
					return nil, err
				}
				if p != nil {
					out[id] = binary.BigEndian.AppendUint64(nil, offset+p.Number())
				}
			}
		}
		offset += seg.Count()
	}
	return out, nil
}
