// Package vector finds the chunks whose vectors are closest to a query
// vector, by an exact cosine scan over float32 vectors held in memory.
//
// Where the store keeps an int8 code beside each vector ([Codes],
// code.go), a search scans the codes instead, a quarter of the bytes, and
// rescores its best candidates with their float32 vectors, so that it
// returns the exact scan's matches and scores (codesearch.go). A query
// nonzero in few dimensions, as the hash embedder's are, is scored from a
// copy of the cached codes laid out by dimension, reading only its own
// dimensions' columns (sparse.go).
//
// Vectors live in the store (see core/store); this package keeps a cache
// of them (or of their codes) per namespace, cut into week-long segments
// sorted by chunk time.
// A search scoped to a time window loads and scans only the segments that
// overlap the window, so its cost follows the data it touches rather than
// the size of the corpus. Writes invalidate the segments they touch.
//
// Vectors are expected to be L2-normalised, so that the dot product is the
// cosine similarity.
package vector
