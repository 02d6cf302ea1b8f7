// Package bench holds the commands of cmd/huimem-bench ([Program]):
// retrieval quality on the dev sets (locomo, beam, zh, dev) and
// performance (perf, cold, ingest, serve, cluster, concurrent). The
// harnesses they drive are its subpackages; huimem links none of them.
package bench
