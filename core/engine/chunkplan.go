package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/huimemory/huimemory/archive/transcript"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

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
	old         map[core.ChunkKey]*storedChunk
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
	old    *storedChunk
	vec    []float32 // nil when the old vector is kept
	embed  bool
	fields bool // indexed fields changed
}

// loadSession reads a session's stored messages and chunks and merges in
// the new messages.
// Stored messages for which drop returns true are left out: those that a
// changed source replaces or a forget removes.
func (w *writer) loadSession(tx *store.Tx, ns, session string, added []*newMsg, drop func(core.MessageKey) bool) (*sessionPlan, error) {
	p := &sessionPlan{ns: ns, session: session, old: map[core.ChunkKey]*storedChunk{}}
	stored, refs, err := tx.SessionMessages(ns, session)
	if err != nil {
		return nil, err
	}
	for i, sm := range stored {
		m, err := sm.Core()
		if err != nil {
			return nil, err
		}
		if drop(m.Key()) {
			continue
		}
		if sm.Sealed {
			if m.Text, err = w.sealedText(tx, sm); err != nil {
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
	if len(p.msgs) > 0 { // a replace may empty a session
		p.file = transcript.SessionFile(ns, session, p.msgs[0].Time)
	}
	p.oldIDs = tx.SessionChunkIDs(ns, session)
	if err := p.loadOld(tx, p.oldIDs); err != nil {
		return nil, err
	}
	p.oldSession, err = tx.Session(ns, session)
	return p, err
}

// storedChunk is a stored chunk as a plan reads it: without its text and
// message references (store's ChunkBrief), and its stored bytes, for
// sameRecord.
type storedChunk struct {
	*store.Chunk
	raw []byte
}

// loadOld reads the stored chunks ids into the plan's old chunks.
func (p *sessionPlan) loadOld(tx *store.Tx, ids []string) error {
	for _, id := range ids {
		c, raw, err := tx.ChunkBrief(id)
		if err != nil {
			return err
		}
		p.old[c.Key] = &storedChunk{c, raw}
	}
	return nil
}

// chunkSession cuts a planned session into chunks and runs the extractors
// on the chunks whose content changed.
func (w *writer) chunkSession(ctx context.Context, p *sessionPlan) error {
	if len(p.msgs) == 0 { // an emptied session has no chunks
		return nil
	}
	sms := make([]core.SessionMessage, len(p.msgs))
	for i := range p.msgs {
		sms[i] = core.SessionMessage{Message: p.msgs[i].Message, HeaderLine: p.msgs[i].pos.Header,
			TextStart: p.msgs[i].pos.TextStart, TextEnd: p.msgs[i].pos.TextEnd}
	}
	spans, err := w.chunker.Chunk(ctx, sms)
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
			Roles: roles(c.Messages), Speakers: c.Speakers(), Asks: asks(c.Messages),
		}
		pc.rec = rec
		if pc.old != nil && pc.old.Hash == rec.Hash {
			rec.Topic, rec.Memories, rec.PendingExtract = pc.old.Topic, pc.old.Memories, pc.old.PendingExtract
		} else {
			pc.embed = true
			fails, err := w.extract(ctx, c, rec)
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

// asks reports whether a chunk of msgs is a question in a chat without
// roles: no message has a role, and the last one ends with a question
// mark (store.Chunk.Asks).
func asks(msgs []core.Message) bool {
	if len(msgs) == 0 {
		return false
	}
	for i := range msgs {
		if msgs[i].Role != core.RoleNone {
			return false
		}
	}
	t := strings.TrimSpace(msgs[len(msgs)-1].Text)
	return strings.HasSuffix(t, "?") || strings.HasSuffix(t, "？")
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
func (w *writer) extract(ctx context.Context, c *core.Chunk, rec *store.Chunk) (fails []ExtractFailure, err error) {
	rec.Topic, rec.Memories, rec.PendingExtract = "", nil, nil
	for i, x := range w.extractors {
		mems, err := x.Extract(ctx, c)
		if err != nil {
			if ctx.Err() != nil {
				return fails, fmt.Errorf("extractor %s: %w", w.extractorName(i), err)
			}
			rec.PendingExtract = append(rec.PendingExtract, w.extractorName(i))
			fails = append(fails, ExtractFailure{Session: c.Session, Time: c.Time, Extractor: w.extractorName(i), Error: err.Error()})
			w.logf("extractor %s failed on a chunk of session %q at %s; it will be retried: %v", w.extractorName(i), c.Session, c.Time.Format(time.RFC3339), err)
			continue
		}
		for _, m := range mems {
			if m.Extractor == "" {
				m.Extractor = w.extractorName(i)
			}
			if rec.Topic == "" && m.Topic != "" {
				rec.Topic = m.Topic
			}
			rec.Memories = append(rec.Memories, m)
		}
	}
	return fails, nil
}

func (w *writer) extractorName(i int) string {
	if i < len(w.extNames) {
		return w.extNames[i]
	}
	return fmt.Sprintf("#%d", i+1)
}

// embedChunks fills in the vectors of the chunks that need one.
func (w *writer) embedChunks(ctx context.Context, chunks []*plannedChunk) error {
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.chunk.Content()
	}
	vecs, err := w.embed(ctx, texts)
	if err != nil {
		return err
	}
	for i, c := range chunks {
		c.vec = vecs[i]
	}
	return nil
}
