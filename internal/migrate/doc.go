// Package migrate copies a memory between storage backends: an embedded
// home and a PostgreSQL database, either way (huimem migrate).
//
// The store moves key for key (store.Store.CopyTo), so chunk ids, anchors,
// sessions, sources, generations and sealed-week records stay what they
// were, and links that users hold keep working. Sealed weeks' archives
// move as they are (files in a home, rows in a database), checked against
// their recorded SHA-256. What each backend derives is made again on the
// destination: the search index is rebuilt and the transcripts are
// rendered from the store when the destination is first opened, which
// Run does before it returns.
package migrate
