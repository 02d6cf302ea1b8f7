// Package loadtest drives running HuiMemory HTTP servers with a bounded,
// mixed load (recalls and appends from concurrent clients over plain
// net/http), then checks that every append it was answered for is
// readable. The load may be spread over several servers sharing one
// store (the PostgreSQL backend): clients are assigned to servers round
// robin, and a request that meets a connection error or a 5xx is sent
// again, unchanged, to the next server. Appends carry their own time and
// ref, so a resent append is the same message and is stored once.
//
// [Run] sends the load and measures it, per phase when [Options.Halfway]
// marks a midpoint (such as killing a server); [Check] verifies afterwards
// that every acknowledged append is stored exactly once and that every
// session's anchor chain is intact. `huimem bench serve` runs it against a
// real `huimem serve` process on loopback, `huimem bench cluster` against
// several on one PostgreSQL (see internal/pgload); the package's test runs
// it against an in-process server.
package loadtest
