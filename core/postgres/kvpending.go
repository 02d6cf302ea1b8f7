package postgres

// A write transaction's writes (kv.go): puts and deletes wait in kvTx.pend,
// other statements in kvTx.queue, and both are sent in one pipelined batch
// before the next read that needs them and at commit.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// maxQueued is how many queued writes are sent at once.
const maxQueued = 2000

// exec queues a write.
func (t *kvTx) exec(sql string, args ...any) error {
	if t.err != nil {
		return t.err
	}
	if !t.write {
		return errors.New("postgres: write in a read-only store transaction")
	}
	t.queue.Queue(sql, args...)
	if t.queue.Len() >= maxQueued {
		return t.flush()
	}
	return nil
}

// pendingWrite is a put, or a delete.
type pendingWrite struct {
	v   []byte
	del bool
}

// write records a put or a delete of key in bucket.
func (t *kvTx) write1(bucket, key []byte, w pendingWrite) error {
	if t.err != nil {
		return t.err
	}
	if !t.write {
		return errors.New("postgres: write in a read-only store transaction")
	}
	if t.pend == nil {
		t.pend = map[string]map[string]pendingWrite{}
	}
	m := t.pend[string(bucket)]
	if m == nil {
		m = map[string]pendingWrite{}
		t.pend[string(bucket)] = m
	}
	if _, ok := m[string(key)]; !ok {
		t.npend++
	}
	m[string(key)] = w
	t.uncache(bucket, key)
	delete(t.whole, string(bucket))
	if t.npend >= maxQueued {
		return t.flushPending("")
	}
	return nil
}

// pending returns the unsent write of key in bucket, if any.
func (t *kvTx) pending(bucket, key []byte) (pendingWrite, bool) {
	w, ok := t.pend[string(bucket)][string(key)]
	return w, ok
}

// flushPending sends the unsent writes of bucket (of every bucket when
// bucket is ""), as one statement of puts and one of deletes per bucket
// and thousand keys, in key order.
func (t *kvTx) flushPending(bucket string) error {
	for name, m := range t.pend {
		if bucket != "" && name != bucket {
			continue
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var pb, pk, pv, db, dk [][]byte
		for _, k := range keys {
			if w := m[k]; w.del {
				db, dk = append(db, []byte(name)), append(dk, []byte(k))
			} else {
				pb, pk, pv = append(pb, []byte(name)), append(pk, []byte(k)), append(pv, w.v)
			}
		}
		for i := 0; i < len(dk); i += 1000 {
			j := min(i+1000, len(dk))
			t.queue.Queue(`DELETE FROM kv WHERE (bucket, key) IN (SELECT * FROM unnest($1::bytea[], $2::bytea[]))`, db[i:j], dk[i:j])
		}
		for i := 0; i < len(pk); i += 1000 {
			j := min(i+1000, len(pk))
			t.queue.Queue(`INSERT INTO kv (bucket, key, value) SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::bytea[])
				ON CONFLICT (bucket, key) DO UPDATE SET value = EXCLUDED.value`, pb[i:j], pk[i:j], pv[i:j])
		}
		t.npend -= len(m)
		delete(t.pend, name)
	}
	return t.flush()
}

// flush sends the queued writes.
func (t *kvTx) flush() error {
	if t.err != nil || t.queue.Len() == 0 {
		return t.err
	}
	q := t.queue
	t.queue = pgx.Batch{}
	if err := t.tx.SendBatch(t.ctx, &q).Close(); err != nil {
		t.fail(fmt.Errorf("postgres: writing the store: %w", err))
	}
	return t.err
}
