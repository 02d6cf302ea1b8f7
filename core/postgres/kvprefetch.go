package postgres

// Reads ahead (store.Prefetcher): a transaction's caller names the keys it
// is about to read, and the first Get that follows reads all of them in
// one pipelined batch, where each Get would be a round trip of its own.

import (
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core/store"
)

var _ store.Prefetcher = (*kvTx)(nil)

// prefetchPage is how many keys one statement of a read-ahead asks for.
const prefetchPage = 1000

// sqlReadAhead reads the keys $2 of bucket $1 that exist, each a probe of
// the primary key on both its columns: a subquery per key, which the
// planner cannot turn into a join or into a scan of the bucket. As
// key = ANY($2), the generic plan that a connection caches at its first
// read ahead, when the table is small, matches the bucket in the index
// and filters its rows by key, a scan of the whole bucket for each
// statement once the bucket is large (TestReadAheadPlan). OFFSET 0 keeps
// the inner query whole, so that the filter on v does not run the
// subquery a second time.
const sqlReadAhead = `SELECT k, v FROM (
		SELECT u.k, (SELECT value FROM kv WHERE bucket = $1 AND key = u.k) AS v
		FROM unnest($2::bytea[]) AS u(k) OFFSET 0) s
	WHERE v IS NOT NULL`

// Prefetch names keys of bucket that the transaction is about to Get. They
// are read, with those of every other Prefetch since the last read, by the
// next Get of a key that the transaction does not hold yet, or with the
// transaction's start when it has not started yet (a read-only
// transaction starts at its first use); a Get of any of them then needs
// no round trip. Keys with a pending write, and keys already read ahead,
// are left out.
func (t *kvTx) Prefetch(bucket []byte, keys [][]byte) {
	if t.err != nil || t.begun && !t.buckets[string(bucket)] {
		return
	}
	if t.whole[string(bucket)] {
		return // read whole as the transaction began
	}
	pend, cached := t.pend[string(bucket)], t.cache[string(bucket)]
	for _, k := range keys {
		if _, ok := pend[string(k)]; ok {
			continue
		}
		if _, ok := cached[string(k)]; ok {
			continue
		}
		if t.want == nil {
			t.want = map[string][][]byte{}
		}
		t.want[string(bucket)] = append(t.want[string(bucket)], k)
		t.nwant++
	}
}

// cached returns what a read-ahead found for key in bucket: the value, or
// nil when the key is absent; ok is false when no read-ahead asked for
// it.
func (t *kvTx) cached(bucket, key []byte) (v []byte, ok bool) {
	v, ok = t.cache[string(bucket)][string(key)]
	return v, ok
}

// readAhead reads the keys named by Prefetch into the cache, in one
// pipelined batch.
func (t *kvTx) readAhead() error {
	if t.nwant == 0 || t.err != nil {
		return t.err
	}
	if err := t.flush(); err != nil {
		return err
	}
	batch := &pgx.Batch{}
	take := t.queueReadAhead(batch)
	res := t.tx.SendBatch(t.ctx, batch)
	err := take(res)
	if cerr := res.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("postgres: reading the store: %w", cerr)
	}
	if err != nil {
		t.fail(err)
	}
	return t.err
}

// queueReadAhead queues the reads of the keys named by Prefetch in batch,
// and returns the function that takes their results, in the order they
// were queued, into the cache. A key that a write of this transaction has
// taken over since it was named is not cached: the pending write answers
// for it, and the table holds its value once sent. A bucket that does not
// exist has no rows, so its keys are cached as absent.
func (t *kvTx) queueReadAhead(batch *pgx.Batch) func(pgx.BatchResults) error {
	type page struct {
		bucket string
		keys   [][]byte
	}
	var pages []page
	for b, keys := range t.want {
		for i := 0; i < len(keys); i += prefetchPage {
			p := page{b, keys[i:min(i+prefetchPage, len(keys))]}
			pages = append(pages, p)
			batch.Queue(sqlReadAhead, []byte(b), p.keys)
		}
	}
	t.want, t.nwant = nil, 0
	return func(res pgx.BatchResults) error {
		if t.cache == nil {
			t.cache = map[string]map[string][]byte{}
		}
		for _, p := range pages {
			found := map[string][]byte{}
			rows, err := res.Query()
			if err == nil {
				for rows.Next() {
					var k, v []byte
					if err = rows.Scan(&k, &v); err != nil {
						break
					}
					if v == nil {
						v = []byte{}
					}
					found[string(k)] = v
				}
				rows.Close()
				if err == nil {
					err = rows.Err()
				}
			}
			if err != nil {
				return fmt.Errorf("postgres: reading bucket %q: %w", p.bucket, err)
			}
			m := t.cache[p.bucket]
			if m == nil {
				m = map[string][]byte{}
				t.cache[p.bucket] = m
			}
			pend := t.pend[p.bucket]
			for _, k := range p.keys {
				if _, ok := pend[string(k)]; !ok {
					m[string(k)] = found[string(k)] // nil: absent
				}
			}
		}
		return nil
	}
}

// bucketMeta is the store's meta bucket: a few dozen small records
// (counters, generation, embedder, schema) that most transactions read,
// so each transaction reads it whole as it begins.
var bucketMeta = []byte("meta")

// sqlReadMeta reads the meta bucket.
const sqlReadMeta = `SELECT key, value FROM kv WHERE bucket = 'meta'`

// takeMeta takes the result of sqlReadMeta into the cache, whole.
func (t *kvTx) takeMeta(res pgx.BatchResults) error {
	rows, err := res.Query()
	if err != nil {
		return fmt.Errorf("postgres: reading bucket %q: %w", bucketMeta, err)
	}
	m := map[string][]byte{}
	for rows.Next() {
		var k, v []byte
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return fmt.Errorf("postgres: reading bucket %q: %w", bucketMeta, err)
		}
		if v == nil {
			v = []byte{}
		}
		m[string(k)] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres: reading bucket %q: %w", bucketMeta, err)
	}
	if t.cache == nil {
		t.cache = map[string]map[string][]byte{}
	}
	t.cache[string(bucketMeta)] = m
	t.whole = map[string]bool{string(bucketMeta): true}
	return nil
}

// uncache forgets what a read-ahead found for key in bucket, which a write
// changes.
func (t *kvTx) uncache(bucket, key []byte) {
	if m := t.cache[string(bucket)]; m != nil {
		delete(m, string(key))
	}
}
