// Package pgload runs the shared-database load test: several
// `huimem serve` processes on one PostgreSQL database, a bounded mixed
// load spread over them (internal/loadtest), one server killed with
// SIGKILL at half time, and a check afterwards that no acknowledged
// append was lost or duplicated and that every session's anchor chain is
// intact.
//
// [Start] starts the servers as child processes of a huimem binary, each
// with its own home folder (which keeps only transcripts and caches on
// this backend) and a free loopback port; [Run] starts them, runs the
// load and the check, and stops them. `huimem bench cluster` and the
// package's test use it.
package pgload
