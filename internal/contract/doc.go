// Package contract holds the engine's contract suite: one set of tests
// of the engine's public behaviour, run against every storage backend
// (the embedded home, and PostgreSQL), the way litestream runs its
// replica tests against every client. Every test runs once per
// backend through each, with the same expectations; TestBackendsAgree
// also compares the two backends with each other.
//
// The suite covers ingest and recall (keywords, Chinese, time windows and
// phrases, the progressive scan, filter expressions, top-k, context,
// NoTime), namespaces, anchors across ingests and re-opening, idempotent
// and all-or-nothing ingest, tracked sources (replace, prune, failure),
// forget, export round trips, sealing, and two engines on one memory (two
// servers on one database; on the embedded backend, two engines with
// AccessShared on one home) with concurrent writers.
//
// The package has no code of its own. PostgreSQL is started by
// internal/pgtest (TestMain).
package contract
