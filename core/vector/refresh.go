package vector

import (
	"fmt"
	"slices"
	"time"
)

// Refreshing after a write. [Index.Invalidate] drops a cached segment,
// and the searches that follow read it from the store until one of them
// copies it back; under a steady stream of writes to the current week
// (a server's appends), every search read that week from the store.
// [Index.Refresh] reads a cached segment again once, for the writer, so
// that the searches after the write find it in the cache.

// Refresh brings the cached segments that hold the times ts in namespace
// ns up to date with the store, which a write has just changed: each
// such segment that is cached is read again, once however many of ts it
// holds, and the others are invalidated ([Index.Invalidate]). A search
// running meanwhile finds either a segment as it was or the new one. It
// returns the store's first error; a segment it could not read is
// dropped.
func (x *Index) Refresh(ns string, ts []time.Time) error {
	segs := make([]int64, 0, 1)
	for _, t := range ts {
		if b := segmentOf(t.UnixNano()); !slices.Contains(segs, b) {
			segs = append(segs, b)
		}
	}
	var first error
	for _, b := range segs {
		if err := x.refresh(ns, b); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// refresh is Refresh of segment b.
func (x *Index) refresh(ns string, b int64) error {
	x.mu.Lock()
	c := x.ns(ns)
	c.version[b]++
	old := c.segs[b]
	version, code := c.version[b], x.code
	x.mu.Unlock()
	if old == nil {
		return nil
	}
	s, err := x.readSegment(ns, b, code, len(old.ids))
	x.mu.Lock()
	defer x.mu.Unlock()
	if c.segs[b] == old {
		delete(c.segs, b)
		x.used -= old.bytes
	}
	if err != nil {
		return err
	}
	if c.version[b] != version || x.code != code || c.segs[b] != nil {
		return nil // written again, or cached, meanwhile
	}
	s.bytes = segmentBytes(s, x.dim, code)
	s.used = old.used
	if x.makeRoom(s.bytes, x.tick+1) {
		c.segs[b] = s
		x.used += s.bytes
	}
	return nil
}

// readSegment reads segment b of namespace ns from the store: its codes
// if code is set, else its float32s. n is about how many vectors it
// holds, for sizing its slices.
func (x *Index) readSegment(ns string, b int64, code bool, n int) (*segment, error) {
	load := x.load
	n += n/8 + 16
	s := &segment{times: make([]int64, 0, n), ids: make([]string, 0, n)}
	if code {
		load = x.codes.Load
		s.codes, s.scales = make([]int8, 0, n*x.dim), make([]float32, 0, n)
	} else {
		s.vecs = make([]float32, 0, n*x.dim)
	}
	var scratch []float32
	err := load(ns, segmentStart(b), segmentStart(b+1), func(id []byte, t int64, raw []byte) error {
		if code {
			c, scale, err := codeOf(x, id, raw)
			if err != nil {
				return err
			}
			s.codes = append(s.codes, c...)
			s.scales = append(s.scales, scale)
		} else {
			v, err := floats(x, id, raw, &scratch)
			if err != nil {
				return err
			}
			s.vecs = append(s.vecs, v...)
		}
		s.times = append(s.times, t)
		s.ids = append(s.ids, string(id))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading vectors of namespace %q: %w", ns, err)
	}
	s.vecs, s.codes, s.scales = slices.Clip(s.vecs), slices.Clip(s.codes), slices.Clip(s.scales)
	return s, nil
}
