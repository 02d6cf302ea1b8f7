package engine

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/jsonl"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
)

// IngestResult says what one ingest did.
type IngestResult struct {
	// Source is the file name, or "" for messages given directly.
	Source string `json:"source,omitempty"`
	// Messages is how many messages were read.
	Messages int `json:"messages"`
	// Added is how many were new; Duplicates were already stored.
	Added      int `json:"added"`
	Duplicates int `json:"duplicates"`
	// ExtractFailures are the extractions that failed; the chunks are
	// stored, and the extractions retried later.
	ExtractFailures []ExtractFailure `json:"extract_failures,omitempty"`
	// DuplicateIndexes are the indexes, in the messages given to
	// [Engine.Ingest], of those that were stored already.
	DuplicateIndexes []int `json:"-"`
	// Chunks is how many chunks were created or changed, Removed how many
	// were merged away.
	Chunks  int `json:"chunks"`
	Removed int `json:"removed"`
	// Sessions is how many sessions were touched.
	Sessions int `json:"sessions"`
	// Unchanged is set when the source's content had been ingested before.
	Unchanged bool `json:"unchanged,omitempty"`
}

// FileOptions tune [Engine.IngestFile].
type FileOptions struct {
	// Namespace is given to messages that name none.
	Namespace string
	// Location is used for times without an offset; nil means local time.
	Location *time.Location
}

// IngestFile ingests a JSONL file (see core/jsonl). The file is all or
// nothing: a bad line fails it with "path:line: problem" and the store is
// left as it was. Ingesting a file whose content was ingested before adds
// nothing.
func (e *Engine) IngestFile(ctx context.Context, path string, opts FileOptions) (IngestResult, error) {
	res := IngestResult{Source: path}
	data, err := os.ReadFile(path)
	if err != nil {
		return res, fmt.Errorf("reading %s: %w", path, err)
	}
	sum := sha256.Sum256(append([]byte(opts.Namespace+"\x00"), data...))
	digest := hex.EncodeToString(sum[:])
	seen := false
	if err := e.st.View(func(tx *store.Tx) error { seen = tx.HasSourceHash(digest); return nil }); err != nil {
		return res, err
	}
	if seen {
		res.Unchanged = true
		return res, nil
	}
	loc := opts.Location
	if loc == nil {
		loc = time.Local
	}
	msgs, err := jsonl.Read(bytes.NewReader(data), path, jsonl.Options{Location: loc, Namespace: opts.Namespace})
	if err != nil {
		return res, err
	}
	abs, _ := filepath.Abs(path)
	r, err := e.ingest(ctx, msgs, &source{name: abs, digest: digest})
	r.Source = path
	return r, err
}

// Ingest stores messages, all or none. Messages already stored are
// skipped, so ingesting the same messages twice adds nothing.
func (e *Engine) Ingest(ctx context.Context, msgs []core.Message) (IngestResult, error) {
	for i := range msgs {
		if err := msgs[i].Validate(); err != nil {
			return IngestResult{}, fmt.Errorf("message %d: %w: %w", i+1, core.ErrInvalid, err)
		}
	}
	return e.ingest(ctx, msgs, nil)
}

// source is the file an ingest reads. track, when set, replaces the
// file's earlier content (issue 13: see sources.go).
type source struct {
	name, digest string
	track        *tracking // issue 13
}

// newMsg is a message that is not stored yet.
type newMsg struct {
	msg   core.Message
	key   core.MessageKey
	seq   uint64
	lines int
}

// sessionPlan is what an ingest will do to one session.
type sessionPlan struct {
	ns, session string
	file        string
	msgs        []planMsg // all messages, in order
	oldIDs      []string
	old         map[core.ChunkKey]*store.Chunk
	oldSession  *store.Session
	chunks      []*plannedChunk
	// extractFails are the extractions that failed, to retry later.
	extractFails []ExtractFailure
}

type planMsg struct {
	core.Message
	ref   store.MsgRef
	key   core.MessageKey
	lines int
	pos   transcript.Position
}

type plannedChunk struct {
	rec    *store.Chunk
	chunk  core.Chunk // with messages, for extractors and content
	old    *store.Chunk
	vec    []float32 // nil when the old vector is kept
	embed  bool
	fields bool // indexed fields changed
}

func (e *Engine) ingest(ctx context.Context, msgs []core.Message, src *source) (IngestResult, error) {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	return e.ingestLocked(ctx, msgs, src)
}

// ingestLocked is ingest for a caller that holds writeMu (issue 13).
func (e *Engine) ingestLocked(ctx context.Context, msgs []core.Message, src *source) (IngestResult, error) {
	res := IngestResult{Messages: len(msgs)}
	if err := e.writable(); err != nil {
		return res, err
	}
	// Phase A: read what is stored and work out the new messages.
	var plans []*sessionPlan
	var fresh []*newMsg
	var baseSeq uint64
	err := e.st.View(func(tx *store.Tx) error {
		baseSeq = tx.Seq()
		seen := map[core.MessageKey]bool{}
		bySession := map[[2]string][]*newMsg{}
		var order [][2]string
		for i := range msgs {
			k := msgs[i].Key()
			if seen[k] || tx.HasMessage(k) {
				res.Duplicates++
				res.DuplicateIndexes = append(res.DuplicateIndexes, i)
				continue
			}
			seen[k] = true
			nm := &newMsg{msg: msgs[i], key: k, seq: baseSeq + uint64(len(fresh)) + 1, lines: transcript.TextLines(msgs[i].Text)}
			fresh = append(fresh, nm)
			sk := [2]string{msgs[i].Namespace, msgs[i].Session}
			if bySession[sk] == nil {
				order = append(order, sk)
			}
			bySession[sk] = append(bySession[sk], nm)
		}
		// issue 13: sessions that only lose messages are planned too.
		for _, sk := range src.dropSessions() {
			if bySession[sk] == nil {
				order = append(order, sk)
				bySession[sk] = []*newMsg{}
			}
		}
		for _, sk := range order {
			p, err := e.loadSession(tx, sk[0], sk[1], bySession[sk], src.dropped)
			if err != nil {
				return err
			}
			plans = append(plans, p)
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	res.Added = len(fresh)
	res.Sessions = len(plans)
	if len(fresh) == 0 && len(src.dropSessions()) == 0 {
		if src != nil {
			err := e.st.Update(func(tx *store.Tx) error {
				if src.track != nil { // issue 13
					if err := src.track.write(tx, src); err != nil || src.track.forget {
						return err
					}
					if err := tx.PutSourceHash(src.name, src.digest); err != nil {
						return err
					}
				}
				return tx.PutSourceContent(src.digest)
			})
			return res, err
		}
		return res, nil
	}
	// Phase B: chunk, extract and embed, outside any transaction.
	var toEmbed []*plannedChunk
	for _, p := range plans {
		if err := e.chunkSession(ctx, p); err != nil {
			return res, err
		}
		for _, c := range p.chunks {
			if c.embed {
				toEmbed = append(toEmbed, c)
			}
		}
	}
	if err := e.embedChunks(ctx, toEmbed); err != nil {
		return res, err
	}
	// Phase C: write everything in one transaction.
	var touched []touchedChunk
	err = e.st.Update(func(tx *store.Tx) error {
		touched = touched[:0]
		if tx.Seq() != baseSeq {
			return fmt.Errorf("store changed during ingest; try again")
		}
		for _, nm := range fresh {
			rec, err := tx.AddMessage(&nm.msg, nm.key, nm.lines)
			if err != nil {
				return err
			}
			if rec.Seq != nm.seq {
				return fmt.Errorf("store changed during ingest; try again")
			}
		}
		if src != nil && src.track != nil { // issue 13: drop replaced messages
			for k := range src.track.drop {
				if err := tx.DeleteMessage(k); err != nil {
					return err
				}
			}
		}
		for _, p := range plans {
			t, changed, removed, err := e.writeSession(tx, p)
			if err != nil {
				return fmt.Errorf("writing session %q: %w", p.session, err)
			}
			touched = append(touched, t...)
			res.Chunks += changed
			res.Removed += removed
		}
		if src != nil {
			if src.track != nil { // issue 13
				if err := src.track.write(tx, src); err != nil || src.track.forget {
					return err
				}
			}
			if err := tx.PutSourceContent(src.digest); err != nil {
				return err
			}
			return tx.PutSourceHash(src.name, src.digest)
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("ingest rolled back, nothing was stored: %w", err)
	}
	for _, t := range touched {
		e.vx.Invalidate(t.ns, t.time)
	}
	removeTranscripts(e.sessionsRoot(), plans) // issue 13: sessions emptied by a replace
	for _, p := range plans {
		res.ExtractFailures = append(res.ExtractFailures, p.extractFails...)
	}
	if err := e.syncDerived(ctx); err != nil {
		return res, err
	}
	if err := e.autoSeal(ctx); err != nil {
		return res, err
	}
	e.maybeRetryExtractions(ctx, len(res.ExtractFailures) > 0)
	return res, nil
}

type touchedChunk struct {
	ns   string
	time time.Time
}

// writable reports why the engine cannot take writes, if it cannot.
func (e *Engine) writable() error {
	if e.closed {
		return core.ErrClosed
	}
	if e.embedderChanged {
		return fmt.Errorf("%w: run `huimem reindex` before adding memories", core.ErrEmbedderChanged)
	}
	return nil
}

// loadSession reads a session's stored messages and chunks and merges in
// the new messages.
// Stored messages for which drop returns true are left out (issue 13).
func (e *Engine) loadSession(tx *store.Tx, ns, session string, added []*newMsg, drop func(core.MessageKey) bool) (*sessionPlan, error) {
	p := &sessionPlan{ns: ns, session: session, old: map[core.ChunkKey]*store.Chunk{}}
	stored, refs, err := tx.SessionMessages(ns, session)
	if err != nil {
		return nil, err
	}
	for i, sm := range stored {
		m, err := sm.Core()
		if err != nil {
			return nil, err
		}
		if drop(m.Key()) { // issue 13
			continue
		}
		if sm.Sealed {
			if m.Text, err = e.sealedText(tx, sm); err != nil {
				return nil, err
			}
		}
		p.msgs = append(p.msgs, planMsg{Message: m, ref: refs[i], key: m.Key(), lines: sm.Lines})
	}
	for _, nm := range added {
		p.msgs = append(p.msgs, planMsg{Message: nm.msg, ref: store.MsgRef{T: nm.msg.Time.UnixNano(), Q: nm.seq}, key: nm.key, lines: nm.lines})
	}
	slices.SortStableFunc(p.msgs, func(a, b planMsg) int {
		return cmp.Or(cmp.Compare(a.ref.T, b.ref.T), cmp.Compare(a.ref.Q, b.ref.Q))
	})
	lines := make([]int, len(p.msgs))
	for i := range p.msgs {
		lines[i] = p.msgs[i].lines
	}
	for i, pos := range transcript.Layout(lines) {
		p.msgs[i].pos = pos
	}
	if len(p.msgs) > 0 { // issue 13: a replace may empty a session
		p.file = transcript.SessionFile(ns, session, p.msgs[0].Time)
	}
	p.oldIDs = tx.SessionChunkIDs(ns, session)
	for _, id := range p.oldIDs {
		c, err := tx.Chunk(id)
		if err != nil {
			return nil, err
		}
		p.old[c.Key] = c
	}
	p.oldSession, err = tx.Session(ns, session)
	return p, err
}

// chunkSession cuts a planned session into chunks and runs the extractors
// on the chunks whose content changed.
func (e *Engine) chunkSession(ctx context.Context, p *sessionPlan) error {
	if len(p.msgs) == 0 { // issue 13: an emptied session has no chunks
		return nil
	}
	sms := make([]core.SessionMessage, len(p.msgs))
	for i := range p.msgs {
		sms[i] = core.SessionMessage{Message: p.msgs[i].Message, HeaderLine: p.msgs[i].pos.Header,
			TextStart: p.msgs[i].pos.TextStart, TextEnd: p.msgs[i].pos.TextEnd}
	}
	spans, err := e.chunker.Chunk(ctx, sms)
	if err != nil {
		return fmt.Errorf("chunking session %q: %w", p.session, err)
	}
	if err := core.CheckSpans(spans, sms); err != nil {
		return fmt.Errorf("chunker returned bad chunks for session %q: %w", p.session, err)
	}
	seen := map[core.ChunkKey]bool{}
	for _, sp := range spans {
		first := &p.msgs[sp.From]
		key := core.NewChunkKey(p.ns, p.session, first.key, sp.LineStart-first.pos.Header)
		if seen[key] {
			return fmt.Errorf("chunker returned two chunks starting at line %d of session %q", sp.LineStart, p.session)
		}
		seen[key] = true
		pc := &plannedChunk{old: p.old[key]}
		c := &pc.chunk
		c.Namespace, c.Session = p.ns, p.session
		c.Time, c.End = first.Time, p.msgs[sp.To-1].Time
		c.File, c.LineStart, c.LineEnd = p.file, sp.LineStart, sp.LineEnd
		c.Text, c.Section = sp.Text, sp.Section
		refs := make([]store.MsgRef, 0, sp.To-sp.From)
		for i := sp.From; i < sp.To; i++ {
			c.Messages = append(c.Messages, p.msgs[i].Message)
			refs = append(refs, p.msgs[i].ref)
		}
		content := c.Content()
		sum := sha256.Sum256([]byte(content))
		rec := &store.Chunk{
			Key: key, NS: p.ns, Session: p.session,
			Time: c.Time.Format(time.RFC3339Nano), End: c.End.Format(time.RFC3339Nano),
			File: c.File, LineStart: c.LineStart, LineEnd: c.LineEnd, Msgs: refs,
			Text: c.Text, Section: c.Section, Hash: hex.EncodeToString(sum[:]),
			Roles: roles(c.Messages), Speakers: c.Speakers(),
		}
		pc.rec = rec
		if pc.old != nil && pc.old.Hash == rec.Hash {
			rec.Topic, rec.Memories, rec.PendingExtract = pc.old.Topic, pc.old.Memories, pc.old.PendingExtract
		} else {
			pc.embed = true
			fails, err := e.extract(ctx, c, rec)
			if err != nil {
				return err
			}
			p.extractFails = append(p.extractFails, fails...)
		}
		c.Topic, c.Memories = rec.Topic, rec.Memories
		pc.fields = pc.old == nil || pc.old.Hash != rec.Hash || pc.old.Topic != rec.Topic ||
			!slices.Equal(types(pc.old.Memories), types(rec.Memories)) || pc.old.Time != rec.Time
		p.chunks = append(p.chunks, pc)
	}
	return nil
}

func roles(msgs []core.Message) []string {
	var out []string
	for i := range msgs {
		if r := string(msgs[i].Role); r != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

func types(mems []core.Memory) []string {
	c := core.Chunk{Memories: mems}
	return c.MemoryTypes()
}

// extract runs the extractors on a chunk and records their output. An
// extractor that fails does not fail the ingest: the chunk is stored
// without its memories, the extractor is listed in the chunk's
// PendingExtract to be retried later (see extract.go), and the failure is
// returned in fails. Only a cancelled ingest is an error.
func (e *Engine) extract(ctx context.Context, c *core.Chunk, rec *store.Chunk) (fails []ExtractFailure, err error) {
	rec.Topic, rec.Memories, rec.PendingExtract = "", nil, nil
	for i, x := range e.extractors {
		mems, err := x.Extract(ctx, c)
		if err != nil {
			if ctx.Err() != nil {
				return fails, fmt.Errorf("extractor %s: %w", e.extractorName(i), err)
			}
			rec.PendingExtract = append(rec.PendingExtract, e.extractorName(i))
			fails = append(fails, ExtractFailure{Session: c.Session, Time: c.Time, Extractor: e.extractorName(i), Error: err.Error()})
			e.logf("extractor %s failed on a chunk of session %q at %s; it will be retried: %v", e.extractorName(i), c.Session, c.Time.Format(time.RFC3339), err)
			continue
		}
		for _, m := range mems {
			if m.Extractor == "" {
				m.Extractor = e.extractorName(i)
			}
			if rec.Topic == "" && m.Topic != "" {
				rec.Topic = m.Topic
			}
			rec.Memories = append(rec.Memories, m)
		}
	}
	return fails, nil
}

func (e *Engine) extractorName(i int) string {
	if i < len(e.extNames) {
		return e.extNames[i]
	}
	return fmt.Sprintf("#%d", i+1)
}

// embedChunks fills in the vectors of the chunks that need one.
func (e *Engine) embedChunks(ctx context.Context, chunks []*plannedChunk) error {
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.chunk.Content()
	}
	vecs, err := e.embed(ctx, texts)
	if err != nil {
		return err
	}
	for i, c := range chunks {
		c.vec = vecs[i]
	}
	return nil
}

// embed embeds texts in batches and checks every vector.
func (e *Engine) embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	bs := e.cfg.Embedding.BatchSize
	for i := 0; i < len(texts); i += bs {
		batch := texts[i:min(i+bs, len(texts))]
		vecs, err := e.emb.Embed(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("embedder %s: %w", e.info.Name, err)
		}
		if len(vecs) != len(batch) {
			return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", e.info.Name, len(vecs), len(batch))
		}
		for j, v := range vecs {
			if len(v) != e.info.Dim {
				return nil, fmt.Errorf("embedder %s returned a vector of dimension %d, want %d", e.info.Name, len(v), e.info.Dim)
			}
			if !vector.Valid(v) {
				return nil, fmt.Errorf("embedder %s returned NaN or infinity for text %d", e.info.Name, i+j+1)
			}
			vector.Normalize(v)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// writeSession writes a planned session's chunks, links and vectors.
func (e *Engine) writeSession(tx *store.Tx, p *sessionPlan) ([]touchedChunk, int, int, error) {
	var touched []touchedChunk
	ids := make([]string, len(p.chunks))
	for i, c := range p.chunks {
		id, err := tx.AllocID(c.rec.Key)
		if err != nil {
			return nil, 0, 0, err
		}
		ids[i] = id
		c.rec.ID = id
	}
	changed := 0
	for i, c := range p.chunks {
		var ctx string
		if i > 0 {
			c.rec.Prev = ids[i-1]
			ctx = p.chunks[i-1].rec.Hash
		}
		ctx += "/"
		if i+1 < len(ids) {
			c.rec.Next = ids[i+1]
			ctx += p.chunks[i+1].rec.Hash
		}
		sum := sha256.Sum256([]byte(ctx))
		c.rec.CtxHash = hex.EncodeToString(sum[:8])
		if c.old != nil && c.old.CtxHash != c.rec.CtxHash {
			c.fields = true // the neighbours' text is indexed with the chunk
		}
		if c.old != nil && sameRecord(c.old, c.rec) {
			continue
		}
		changed++
		if err := tx.PutChunk(c.rec, c.fields); err != nil {
			return nil, 0, 0, err
		}
		if len(c.rec.PendingExtract) > 0 || (c.old != nil && len(c.old.PendingExtract) > 0) {
			if err := tx.MarkPendingExtract(c.rec.ID, len(c.rec.PendingExtract) > 0); err != nil {
				return nil, 0, 0, err
			}
		}
		if c.vec != nil {
			if err := tx.PutVector(p.ns, c.chunk.Time, c.rec.ID, c.vec); err != nil {
				return nil, 0, 0, err
			}
			touched = append(touched, touchedChunk{p.ns, c.chunk.Time})
		}
	}
	removed := 0
	keep := map[string]bool{}
	for _, id := range ids {
		keep[id] = true
	}
	for _, old := range p.old {
		if keep[old.ID] {
			continue
		}
		removed++
		if err := tx.DeleteChunk(old); err != nil {
			return nil, 0, 0, err
		}
		touched = append(touched, touchedChunk{p.ns, old.StartTime()})
	}
	if len(p.msgs) == 0 { // issue 13: the session's last message was removed
		return touched, changed, removed, tx.DeleteSession(p.ns, p.session)
	}
	if !slices.Equal(ids, p.oldIDs) {
		if err := tx.SetSessionChunks(p.ns, p.session, ids); err != nil {
			return nil, 0, 0, err
		}
	}
	sess := &store.Session{
		NS: p.ns, Session: p.session, File: p.file,
		First: p.msgs[0].Time.Format(time.RFC3339Nano), Last: p.msgs[len(p.msgs)-1].Time.Format(time.RFC3339Nano),
		Count: len(p.msgs), Chunks: len(ids),
	}
	if o := p.oldSession; o != nil {
		sess.Stale = o.Stale
		if o.File != p.file && !slices.Contains(sess.Stale, o.File) {
			sess.Stale = append(sess.Stale, o.File)
		}
	}
	if err := tx.PutSession(sess); err != nil {
		return nil, 0, 0, err
	}
	if err := tx.MarkSessionDirty(p.ns, p.session); err != nil {
		return nil, 0, 0, err
	}
	return touched, changed, removed, nil
}

func sameRecord(a, b *store.Chunk) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
