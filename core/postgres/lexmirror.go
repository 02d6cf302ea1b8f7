package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// The lexical index in memory: each server's copy of lex_docs, which
// answers BM25 searches, IDF and presence without a round trip each
// (the SQL search costs a few milliseconds of round trips and jsonb
// lookups; see docs/postgres.md).
//
// The copy follows the change log (lexlog.go). Before each use it reads
// the log's head, one round trip, and when the log has moved it reads the
// chunks the new rows name; so a search sees every change committed before
// it began, as the SQL search does. Concurrent uses share a poll that
// began after they did. The copy loads in the background on first use,
// and again when the log was pruned past it or reset; until it is loaded
// the SQL search answers.

// lexMirror is one process's copy of the lexical index. It is safe for
// concurrent use.
type lexMirror struct {
	db  *DB
	off bool // storage.postgres.no_lexical_copy: never loads

	// syncMu serialises polls; polled is when the last good one began.
	syncMu sync.Mutex
	polled time.Time

	mu      sync.RWMutex
	state   mirrorState
	seq     int64 // the log number the copy reflects
	nss     map[string]*nsCopy
	where   map[string]string // chunk id → namespace
	loadErr error             // why the last load or catch-up failed
	failed  time.Time         // when

	ctx    context.Context // cancelled by close
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

type mirrorState int

const (
	mirrorIdle mirrorState = iota
	mirrorLoading
	mirrorReady
)

func newLexMirror(db *DB) *lexMirror {
	ctx, cancel := context.WithCancel(context.Background())
	return &lexMirror{db: db, ctx: ctx, cancel: cancel}
}

// close stops a load under way and waits for it.
func (m *lexMirror) close() {
	m.cancel()
	m.wg.Wait()
}

// view runs fn, which reads m.nss and m.where, under the read lock, the
// copy current as of the call (or of the [EngineIndex.Fresh] that made
// ctx). It reports false, without running fn, when the copy cannot answer: not
// loaded yet (a load starts), or the log cannot be read (the caller's SQL
// then reports why).
func (m *lexMirror) view(ctx context.Context, fn func()) bool {
	if ctx.Value(freshKey{m}) == nil && !m.fresh(ctx) {
		return false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.state != mirrorReady {
		return false
	}
	fn()
	return true
}

// fresh brings the copy up to date with the log: a poll that began after
// the call did is enough.
func (m *lexMirror) fresh(ctx context.Context) bool {
	asked := time.Now()
	m.mu.RLock()
	st := m.state
	m.mu.RUnlock()
	if st != mirrorReady {
		m.startLoad()
		return false
	}
	m.syncMu.Lock()
	defer m.syncMu.Unlock()
	if m.polled.After(asked) {
		return true
	}
	began := time.Now()
	if err := m.poll(ctx); err != nil {
		return false
	}
	m.polled = began
	return true
}

// poll reads the log's head and applies the rows after the copy's
// number. A copy the log was pruned or reset past loads again, and one
// more than maxSyncRows behind catches up, in the background (the SQL
// answers meanwhile): a request never waits for more than a few rows.
func (m *lexMirror) poll(ctx context.Context) error {
	m.mu.RLock()
	st, seq := m.state, m.seq
	m.mu.RUnlock()
	if st != mirrorReady {
		return errCopyBehind
	}
	last, floor, err := m.db.logHead(ctx)
	if err != nil {
		return err
	}
	switch {
	case floor > seq:
		m.background(func(ctx context.Context) error { return m.load(ctx) })
		return errCopyBehind
	case last <= seq:
		return nil
	case last-seq > maxSyncRows:
		m.background(func(ctx context.Context) error { return m.catchUp(ctx, seq, last) })
		return errCopyBehind
	}
	if err := m.catchUp(ctx, seq, last); err != nil {
		// Some rows may be in and others not: the copy goes, and loads
		// again after loadRetry.
		m.mu.Lock()
		m.state, m.nss, m.where, m.seq, m.loadErr, m.failed = mirrorIdle, nil, nil, 0, err, time.Now()
		m.mu.Unlock()
		return err
	}
	return nil
}

// maxSyncRows is how many log rows a request catches up on itself, and
// loadRetry how long after a failed load (a row it cannot read, say) the
// SQL answers before the copy loads again.
const (
	maxSyncRows = 64
	loadRetry   = time.Minute
)

var errCopyBehind = errors.New("postgres: the lexical copy is catching up")

// catchUp applies the log rows numbered in (seq, last]: each chunk they
// name is removed and, if it is still indexed, added as it is now.
func (m *lexMirror) catchUp(ctx context.Context, seq, last int64) error {
	rows, err := m.db.pool.Query(ctx, sqlChangedDocs, seq, last)
	if err != nil {
		return fmt.Errorf("reading lexical changes: %w", err)
	}
	changed, err := scanMirrorRows(rows)
	if err != nil {
		return fmt.Errorf("reading lexical changes: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range changed {
		if ns, ok := m.where[r.id]; ok {
			m.nss[ns].remove(r.id)
			delete(m.where, r.id)
		}
	}
	for i := range changed {
		if !changed[i].present {
			continue
		}
		if err := m.add(&changed[i]); err != nil {
			return fmt.Errorf("reading lexical changes: %w", err)
		}
	}
	for _, c := range m.nss {
		c.compactIfSparse()
	}
	m.seq = last
	return nil
}

// add indexes row r in its namespace's copy; m.mu is held for writing.
func (m *lexMirror) add(r *mirrorRow) error {
	c := m.nss[r.ns]
	if c == nil {
		c = newNSCopy()
		m.nss[r.ns] = c
	}
	if err := c.add(r); err != nil {
		return err
	}
	m.where[r.id] = r.ns
	return nil
}

// startLoad loads the copy in the background unless it is loaded or
// loading, or a load failed less than loadRetry ago.
func (m *lexMirror) startLoad() {
	m.mu.RLock()
	idle := m.state == mirrorIdle && (m.loadErr == nil || time.Since(m.failed) >= loadRetry)
	m.mu.RUnlock()
	if idle {
		m.background(func(ctx context.Context) error { return m.load(ctx) })
	}
}

// background runs work with the copy out of use, unless another is under
// way or the mirror is closed; the copy is ready again when work
// succeeds, and loads again on its next use when it fails.
func (m *lexMirror) background(work func(context.Context) error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state == mirrorLoading || m.ctx.Err() != nil {
		return
	}
	m.state = mirrorLoading
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		err := work(m.ctx)
		m.mu.Lock()
		defer m.mu.Unlock()
		m.loadErr = err
		m.state = mirrorReady
		if err != nil {
			m.state, m.nss, m.where, m.seq, m.failed = mirrorIdle, nil, nil, 0, time.Now()
		}
	}()
}

// load reads every lex_docs row into a new copy. The log's head is read
// first: the rows then hold every change up to it (and perhaps later
// ones, which the next poll reads again).
func (m *lexMirror) load(ctx context.Context) error {
	last, floor, err := m.db.logHead(ctx)
	if err != nil {
		return err
	}
	rows, err := m.db.pool.Query(ctx, sqlAllDocs)
	if err != nil {
		return fmt.Errorf("loading the lexical index: %w", err)
	}
	fresh := &lexMirror{nss: map[string]*nsCopy{}, where: map[string]string{}}
	if err := eachMirrorRow(rows, fresh.add); err != nil {
		return fmt.Errorf("loading the lexical index: %w", err)
	}
	for _, c := range fresh.nss {
		c.trim()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nss, m.where, m.seq = fresh.nss, fresh.where, max(last, floor)
	return nil
}

// waitReady loads the copy and waits until it is loaded, or the mirror
// is closed, or ctx is done; it returns at once for a copy turned off.
func (m *lexMirror) waitReady(ctx context.Context) error {
	if m.off {
		return nil
	}
	m.fresh(ctx) // a copy the log has left behind starts loading again
	for {
		m.startLoad()
		m.mu.RLock()
		st, err := m.state, m.loadErr
		m.mu.RUnlock()
		if st == mirrorReady {
			return nil
		}
		if st == mirrorIdle && err != nil {
			return err
		}
		select {
		case <-m.ctx.Done():
			return errors.New("postgres: the lexical index is closed")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

// mirrorColumns are the lex_docs columns a copy holds.
const mirrorColumns = `d.ns, d.id, d.session, d.t, d.len_text, d.len_reply, d.len_ctx, d.roles, d.speakers, d.topic, d.types, d.tf::text`

const sqlAllDocs = `SELECT true, ` + mirrorColumns + ` FROM lex_docs d`

// sqlChangedDocs reads the chunks that the log rows numbered in ($1, $2]
// name, with a row of nulls for each that is gone.
const sqlChangedDocs = `SELECT d.id IS NOT NULL, coalesce(d.ns, ''), u.id, coalesce(d.session, ''), coalesce(d.t, 'epoch'),
	coalesce(d.len_text, 0), coalesce(d.len_reply, 0), coalesce(d.len_ctx, 0), coalesce(d.roles, '{}'), coalesce(d.speakers, '{}'),
	coalesce(d.topic, ''), coalesce(d.types, '{}'), coalesce(d.tf::text, '{}')
	FROM (SELECT DISTINCT unnest(ids) AS id FROM lex_log WHERE seq > $1 AND seq <= $2) u
	LEFT JOIN lex_docs d ON d.ns = ANY(ARRAY(SELECT ns FROM lex_stats)) AND d.id = u.id`

// mirrorRow is one lex_docs row as read for a copy; present is false for
// a chunk that is gone.
type mirrorRow struct {
	present                bool
	ns, id, session, topic string
	t                      time.Time
	lens                   [3]int32
	roles, speakers, types []string
	tf                     string
}

// scanMirrorRows reads every row of rows.
func scanMirrorRows(rows pgx.Rows) ([]mirrorRow, error) {
	var out []mirrorRow
	err := eachMirrorRow(rows, func(r *mirrorRow) error { out = append(out, *r); return nil })
	return out, err
}

// eachMirrorRow calls fn with each row of rows.
func eachMirrorRow(rows pgx.Rows, fn func(*mirrorRow) error) error {
	defer rows.Close()
	for rows.Next() {
		var r mirrorRow
		if err := rows.Scan(&r.present, &r.ns, &r.id, &r.session, &r.t, &r.lens[0], &r.lens[1], &r.lens[2],
			&r.roles, &r.speakers, &r.topic, &r.types, &r.tf); err != nil {
			return err
		}
		if err := fn(&r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// nsCopy is one namespace's documents, with a posting list and document
// frequencies per term, and its statistics (which equal lex_stats', as
// they count the same rows).
type nsCopy struct {
	docs  []mdoc            // by ordinal; a removed one has no id
	ord   map[string]uint32 // id → ordinal
	dict  map[string]uint32 // term → term number
	post  [][]uint64        // term number → postings (see posting), ascending
	df    [3][]int32        // field → term number → documents holding it
	stats Stats
	dead  int // removed documents still in docs
	// scratch holds the accumulators of searches (lexmirror_search.go).
	scratch sync.Pool
	// strs interns sessions, topics, roles, speakers and types, and
	// lists the lists of roles, speakers and types.
	strs  map[string]string
	lists map[string][]string
}

// mdoc is one chunk of a copy: its conditions' fields, its field lengths,
// and its terms, each with its frequencies (see entry).
type mdoc struct {
	id, session, topic     string
	t                      int64 // microseconds since 1970, as PostgreSQL keeps it
	lens                   [3]int32
	roles, speakers, types []string
	terms                  []uint64 // entries, ascending by term number
}

// An entry packs a term number (its top 28 bits) and the term's
// frequencies in the ctx, reply and text fields (12 bits each, as
// lex_docs.tf packs them), so that a chunk's terms sorted by number are
// its entries sorted.
const (
	entryTermShift = 36
	maxTerms       = 1 << (64 - entryTermShift)
)

func entryTerm(e uint64) uint32 { return uint32(e >> entryTermShift) }

// A posting packs a chunk's ordinal the same way, with the term's
// frequencies from the chunk's entry e: a search reads the frequencies
// where it finds the chunk.
func posting(ord uint32, e uint64) uint64 {
	return uint64(ord)<<entryTermShift | e&(1<<entryTermShift-1)
}

func postingOrd(p uint64) uint32 { return uint32(p >> entryTermShift) }

func entryTF(e uint64) [3]uint16 {
	return [3]uint16{uint16(e & 4095), uint16(e >> 12 & 4095), uint16(e >> 24 & 4095)}
}

func newNSCopy() *nsCopy {
	return &nsCopy{ord: map[string]uint32{}, dict: map[string]uint32{}, strs: map[string]string{}, lists: map[string][]string{}}
}

func (c *nsCopy) intern(s string) string {
	if v, ok := c.strs[s]; ok {
		return v
	}
	s = string([]byte(s)) // not the row buffer's
	c.strs[s] = s
	return s
}

// internAll interns a list of roles, speakers or types: chunks share a
// few such lists.
func (c *nsCopy) internAll(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	key := strings.Join(ss, "\x00")
	if v, ok := c.lists[key]; ok && len(v) == len(ss) {
		return v
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = c.intern(s)
	}
	c.lists[key] = out
	return out
}

// add indexes row r, whose id the copy does not hold.
func (c *nsCopy) add(r *mirrorRow) error {
	var es []uint64
	err := parseTermMap(r.tf, func(term string, packed int64) {
		n, ok := c.dict[term]
		if !ok {
			n = uint32(len(c.post))
			c.dict[string([]byte(term))] = n
			c.post = append(c.post, nil)
			for k := range c.df {
				c.df[k] = append(c.df[k], 0)
			}
		}
		es = append(es, uint64(n)<<entryTermShift|uint64(packed)&(1<<entryTermShift-1))
	})
	if err != nil {
		return fmt.Errorf("chunk %s: %w", r.id, err)
	}
	if len(c.post) > maxTerms || len(c.docs) >= maxTerms {
		return fmt.Errorf("namespace %q holds more than %d terms or chunks", r.ns, maxTerms)
	}
	slices.Sort(es)
	d := mdoc{
		id: string([]byte(r.id)), session: c.intern(r.session), topic: c.intern(r.topic),
		t: r.t.UnixMicro(), lens: r.lens,
		roles: c.internAll(r.roles), speakers: c.internAll(r.speakers), types: c.internAll(r.types),
		terms: es,
	}
	ord := uint32(len(c.docs))
	for _, e := range es {
		n := entryTerm(e)
		c.post[n] = append(c.post[n], posting(ord, e))
		for k, tf := range entryTF(e) {
			if tf > 0 {
				if c.df[k][n] == 0 {
					c.stats.Terms[k]++
				}
				c.df[k][n]++
			}
		}
	}
	c.stats.Docs++
	for k := range d.lens {
		c.stats.Tokens[k] += int64(d.lens[k])
	}
	c.docs = append(c.docs, d)
	c.ord[d.id] = ord
	return nil
}

// remove takes the chunk id out of the statistics; its ordinal stays in
// the posting lists, a removed document, until a compaction.
func (c *nsCopy) remove(id string) {
	ord, ok := c.ord[id]
	if !ok {
		return
	}
	d := &c.docs[ord]
	for _, e := range d.terms {
		n := entryTerm(e)
		for k, tf := range entryTF(e) {
			if tf > 0 {
				c.df[k][n]--
				if c.df[k][n] == 0 {
					c.stats.Terms[k]--
				}
			}
		}
	}
	c.stats.Docs--
	for k := range d.lens {
		c.stats.Tokens[k] -= int64(d.lens[k])
	}
	*d = mdoc{}
	delete(c.ord, id)
	c.dead++
}

// compactIfSparse renumbers the documents when removed ones are more than
// a quarter of them, rebuilding the posting lists.
func (c *nsCopy) compactIfSparse() {
	if c.dead < 1024 || 4*c.dead < len(c.docs) {
		return
	}
	docs := make([]mdoc, 0, len(c.docs)-c.dead)
	for i := range c.docs {
		if c.docs[i].id != "" {
			docs = append(docs, c.docs[i])
		}
	}
	for n := range c.post {
		c.post[n] = c.post[n][:0]
	}
	for i := range docs {
		c.ord[docs[i].id] = uint32(i)
		for _, e := range docs[i].terms {
			n := entryTerm(e)
			c.post[n] = append(c.post[n], posting(uint32(i), e))
		}
	}
	c.docs, c.dead = docs, 0
	c.trim()
}

// trim gives back the room the posting lists grew into.
func (c *nsCopy) trim() {
	for n, p := range c.post {
		if cap(p) > len(p) {
			c.post[n] = slices.Clone(p)
		}
	}
}

// tf returns the frequencies of term number n in d, zero when d does not
// hold it.
func (d *mdoc) tf(n uint32) [3]uint16 {
	i, ok := slices.BinarySearchFunc(d.terms, n, func(e uint64, n uint32) int { return cmp.Compare(entryTerm(e), n) })
	if !ok {
		return [3]uint16{}
	}
	return entryTF(d.terms[i])
}

// parseTermMap calls fn with each term of a lex_docs.tf map in
// PostgreSQL's jsonb text form, {"term": 123, ...}.
func parseTermMap(s string, fn func(term string, packed int64)) error {
	bad := func(i int) error { return fmt.Errorf("term map at byte %d: unexpected %q", i, s[min(i, len(s)):]) }
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
			i++
		}
	}
	skip()
	if i >= len(s) || s[i] != '{' {
		return bad(i)
	}
	i++
	skip()
	if i < len(s) && s[i] == '}' {
		return nil
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return bad(i)
		}
		start, escaped := i, false
		for i++; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' {
				escaped = true
				i++
			}
		}
		if i >= len(s) {
			return bad(start)
		}
		i++
		term := s[start+1 : i-1]
		if escaped {
			if err := json.Unmarshal([]byte(s[start:i]), &term); err != nil {
				return bad(start)
			}
		}
		skip()
		if i >= len(s) || s[i] != ':' {
			return bad(i)
		}
		i++
		skip()
		var v int64
		digits := i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			v = 10*v + int64(s[i]-'0')
		}
		if i == digits {
			return bad(i)
		}
		fn(term, v)
		skip()
		if i < len(s) && s[i] == ',' {
			i++
			skip()
			continue
		}
		if i < len(s) && s[i] == '}' {
			return nil
		}
		return bad(i)
	}
}
