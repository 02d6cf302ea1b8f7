package postgres

import "fmt"

// kvCursor walks a bucket in pages, each a query from the last key seen;
// pages grow from 64 to 1024 rows so that a short walk reads little and a
// long one makes few round trips.
type kvCursor struct {
	b      *kvBucket
	page   []kvRow
	i      int
	last   []byte // the last key of the page; nil before any
	more   bool   // the page was full: there may be more rows
	pageSz int
}

type kvRow struct{ k, v []byte }

func (c *kvCursor) First() ([]byte, []byte) { return c.fetch(nil, true) }

func (c *kvCursor) Seek(seek []byte) ([]byte, []byte) { return c.fetch(seek, true) }

func (c *kvCursor) Next() ([]byte, []byte) {
	c.i++
	if c.i < len(c.page) {
		r := c.page[c.i]
		return r.k, r.v
	}
	if !c.more {
		c.page, c.i = nil, 0
		return nil, nil
	}
	return c.fetch(c.last, false)
}

// fetch reads a page of keys >= from (inclusive) or > from.
func (c *kvCursor) fetch(from []byte, inclusive bool) ([]byte, []byte) {
	t := c.b.t
	c.page, c.i, c.more = nil, 0, false
	if t.flushPending(string(c.b.name)) != nil {
		return nil, nil
	}
	switch {
	case inclusive:
		c.pageSz = 64
	case c.pageSz < 1024:
		c.pageSz *= 2
	}
	op := ">"
	if inclusive {
		op = ">="
	}
	if from == nil {
		from = []byte{}
		op = ">="
	}
	rows, err := t.tx.Query(t.ctx, `SELECT key, value FROM kv WHERE bucket = $1 AND key `+op+` $2 ORDER BY key LIMIT $3`,
		c.b.name, from, c.pageSz)
	if err != nil {
		t.fail(fmt.Errorf("postgres: reading bucket %q: %w", c.b.name, err))
		return nil, nil
	}
	for rows.Next() {
		var r kvRow
		if err := rows.Scan(&r.k, &r.v); err != nil {
			rows.Close()
			t.fail(fmt.Errorf("postgres: reading bucket %q: %w", c.b.name, err))
			return nil, nil
		}
		if r.v == nil {
			r.v = []byte{}
		}
		c.page = append(c.page, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.fail(fmt.Errorf("postgres: reading bucket %q: %w", c.b.name, err))
		return nil, nil
	}
	if len(c.page) == 0 {
		return nil, nil
	}
	c.more = len(c.page) == c.pageSz
	c.last = c.page[len(c.page)-1].k
	return c.page[0].k, c.page[0].v
}
