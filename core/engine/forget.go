package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/filter"
	"github.com/huimemory/huimemory/core/store"
)

// Forgetting.
//
// [Engine.Forget] removes messages so that their text is gone from every
// file of the home, not only from what recalls return. Under writeMu it:
//
//  1. Works out the messages to remove, in one namespace only.
//  2. Records in the store which weeks of that namespace are sealed (the
//     "pending forget" marker), so that an interrupted forget can be
//     finished.
//  3. Re-opens the sealed weeks that hold the messages' sessions, then, in
//     one transaction, deletes the messages and every source's claim on
//     them, re-cuts each touched session into chunks with its prev/next
//     links re-made, re-embeds and re-extracts the chunks that changed,
//     and deletes the sessions left empty. This is the replace machinery
//     of a changed source (see sources.go). The index is brought
//     in step and the transcripts rewritten (those of emptied sessions
//     removed).
//  4. Finishes (finishForget): re-seals every week recorded in step 2 that
//     is no longer sealed (the same steps, and crash safety, as
//     [Engine.Seal]); rebuilds the search index from the store into a new
//     folder and swaps it in, because deleted documents linger in the
//     index's segments until they are merged; empties the
//     decompressed-week cache and the in-memory views of sealed weeks;
//     clears the marker; and compacts the store file, because bbolt keeps
//     deleted data on free pages ([store.Store.Compact]).
//
// A crash during 3 leaves either the old store (the text is still there,
// and the weeks re-opened so far are re-sealed by the next forget) or the
// new one; a crash during 4 leaves the marker, and the next Open (or
// forget, dry runs aside) finishes the work first.

// ForgetOptions choose what [Engine.Forget] removes. Exactly one of ID,
// Session, AllNamespace and Filter must be set; each selects within
// Namespace only.
type ForgetOptions struct {
	// Namespace is the namespace to forget in ("" is the default one). A
	// forget never touches another namespace.
	Namespace string
	// ID selects the messages of one chunk (matched whatever its case).
	ID string
	// Session selects every message of one session.
	Session string
	// AllNamespace selects every message of the namespace.
	AllNamespace bool
	// Filter selects the messages of the chunks of the namespace that
	// match a filter expression (see core/filter), such as
	// "speaker = 'Bob' AND timestamp < '2026-01-01'".
	Filter string
	// Location is used for dates in Filter; nil means time.zone.
	Location *time.Location
	// DryRun lists what would be forgotten and changes nothing.
	DryRun bool
}

// ForgottenMessage describes one message that is (or, in a dry run,
// would be) forgotten.
type ForgottenMessage struct {
	Session string    `json:"session"`
	Chunk   string    `json:"chunk,omitempty"`
	Time    time.Time `json:"time"`
	Role    string    `json:"role,omitempty"`
	Speaker string    `json:"speaker,omitempty"`
	Ref     string    `json:"ref,omitempty"`
	// Preview is the start of the text, on one line.
	Preview string `json:"preview"`
}

// ForgetResult says what [Engine.Forget] did or, in a dry run, would do.
type ForgetResult struct {
	DryRun    bool   `json:"dry_run"`
	Namespace string `json:"namespace,omitempty"`
	// Sessions are the sessions that lose messages, and Chunks the chunks
	// that held them, as they were before the forget.
	Sessions []string           `json:"sessions"`
	Chunks   []string           `json:"chunks"`
	Messages []ForgottenMessage `json:"messages"`
	// The rest is set by a forget that ran. SessionsRemoved counts the
	// sessions left empty and removed; ChunksChanged the chunks re-cut or
	// re-linked, and ChunksRemoved those that went.
	SessionsRemoved int `json:"sessions_removed"`
	ChunksChanged   int `json:"chunks_changed"`
	ChunksRemoved   int `json:"chunks_removed"`
	// Resealed are the sealed weeks that were re-sealed without the
	// messages.
	Resealed []string `json:"resealed_weeks,omitempty"`
	// Store is what compacting the store file did.
	Store store.CompactStats `json:"store"`
}

// previewRunes bounds a [ForgottenMessage.Preview].
const previewRunes = 60

// forget is [Engine.Forget].
func (m *maintainer) forget(ctx context.Context, opts ForgetOptions) (ForgetResult, error) {
	res := ForgetResult{DryRun: opts.DryRun, Namespace: opts.Namespace, Sessions: []string{}, Chunks: []string{}, Messages: []ForgottenMessage{}}
	expr, err := m.checkForget(&opts)
	if err != nil {
		return res, err
	}
	if opts.DryRun {
		if m.closed {
			return res, core.ErrClosed
		}
		plan, err := m.planForget(opts, expr)
		if err != nil {
			return res, err
		}
		plan.fill(&res)
		return res, nil
	}
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	if err := m.writable(); err != nil {
		return res, err
	}
	if _, _, err := m.finishForget(ctx); err != nil {
		return res, fmt.Errorf("finishing an earlier, interrupted forget: %w", err)
	}
	plan, err := m.planForget(opts, expr)
	if err != nil {
		return res, err
	}
	plan.fill(&res)
	if len(plan.drop) == 0 {
		return res, nil
	}
	if err := m.markForget(opts.Namespace); err != nil {
		return res, err
	}
	track := &tracking{drop: plan.drop, sessions: plan.sessions, forget: true, erase: true}
	r, ingestErr := m.w.applyTracking(ctx, nil, &source{track: track})
	if ingestErr != nil && !m.dropped(plan.drop) {
		// Nothing was removed; put back the seals of the weeks re-opened
		// so far.
		_, _, err := m.finishForget(ctx)
		return res, errors.Join(fmt.Errorf("forget failed, nothing was removed: %w", ingestErr), err)
	}
	res.ChunksChanged, res.ChunksRemoved = r.Chunks, r.Removed
	if res.SessionsRemoved, err = m.tidyForgotten(plan.sessions); err != nil {
		return res, err
	}
	resealed, cs, err := m.finishForget(ctx)
	res.Resealed, res.Store = resealed, cs
	if ingestErr != nil || err != nil {
		return res, errors.Join(ingestErr, err, fmt.Errorf("the messages are removed from the store; run the forget again to finish removing their traces"))
	}
	return res, nil
}

// checkForget validates opts, normalises the id, and parses the filter.
func (m *maintainer) checkForget(opts *ForgetOptions) (filter.Expr, error) {
	if err := core.ValidateNamespace(opts.Namespace); err != nil {
		return nil, fmt.Errorf("%w: %w", core.ErrInvalid, err)
	}
	n := 0
	for _, set := range []bool{opts.ID != "", opts.Session != "", opts.AllNamespace, opts.Filter != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, fmt.Errorf("%w: forget needs exactly one of a chunk id, a session, the whole namespace or a filter (got %d)", core.ErrInvalid, n)
	}
	if opts.ID != "" {
		opts.ID = strings.ToLower(strings.TrimSpace(opts.ID))
		if !core.ValidID(opts.ID) {
			return nil, fmt.Errorf("%w: %q is not a chunk id", core.ErrInvalid, opts.ID)
		}
	}
	if opts.Filter == "" {
		return nil, nil
	}
	loc := opts.Location
	if loc == nil {
		loc = m.cfg.Time.Location()
	}
	expr, err := filter.Parse(opts.Filter, loc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", core.ErrInvalid, err)
	}
	return expr, nil
}

// forgetPlan is what a forget removes.
type forgetPlan struct {
	drop     map[core.MessageKey]bool
	sessions [][2]string // (namespace, session), in order
	chunks   []string
	msgs     []ForgottenMessage
}

func (p *forgetPlan) fill(res *ForgetResult) {
	for _, s := range p.sessions {
		res.Sessions = append(res.Sessions, s[1])
	}
	res.Chunks = append(res.Chunks, p.chunks...)
	res.Messages = append(res.Messages, p.msgs...)
}

// planForget selects the messages opts names, in one read transaction.
func (m *maintainer) planForget(opts ForgetOptions, expr filter.Expr) (*forgetPlan, error) {
	p := &forgetPlan{drop: map[core.MessageKey]bool{}}
	err := m.st.View(func(tx *store.Tx) error {
		fp := &forgetPlanner{m: m, tx: tx, ns: opts.Namespace, p: p, seen: map[string]bool{}}
		switch {
		case opts.ID != "":
			return fp.byID(opts.ID)
		case opts.Session != "":
			return fp.bySession(opts.Session)
		default:
			return fp.byFilter(opts.AllNamespace, expr)
		}
	})
	return p, err
}

// forgetPlanner gathers, in one read transaction, the messages a forget
// removes, in one namespace.
type forgetPlanner struct {
	m    *maintainer
	tx   *store.Tx
	ns   string
	p    *forgetPlan
	seen map[string]bool // sessions already listed
}

func (fp *forgetPlanner) addSession(session string) {
	if !fp.seen[session] {
		fp.seen[session] = true
		fp.p.sessions = append(fp.p.sessions, [2]string{fp.ns, session})
	}
}

func (fp *forgetPlanner) addMsg(sm *store.Message, chunk string) error {
	m, err := sm.Core()
	if err != nil {
		return err
	}
	if sm.Sealed {
		if m.Text, err = fp.m.sealedText(fp.tx, sm); err != nil {
			return err
		}
	}
	k := m.Key()
	if fp.p.drop[k] {
		return nil
	}
	fp.p.drop[k] = true
	fp.p.msgs = append(fp.p.msgs, ForgottenMessage{Session: m.Session, Chunk: chunk, Time: m.Time,
		Role: string(m.Role), Speaker: m.Speaker, Ref: m.Ref, Preview: preview(m.Text)})
	return nil
}

func (fp *forgetPlanner) addChunk(c *store.Chunk) error {
	fp.addSession(c.Session)
	fp.p.chunks = append(fp.p.chunks, c.ID)
	for _, ref := range c.Msgs {
		sm, err := fp.tx.Message(fp.ns, c.Session, ref)
		if err != nil {
			return err
		}
		if err := fp.addMsg(sm, c.ID); err != nil {
			return err
		}
	}
	return nil
}

// chunksOf visits a session's chunks in order, keeping those keep accepts
// (all with a nil keep), then, when whole, any message no chunk holds.
func (fp *forgetPlanner) chunksOf(session string, keep func(*store.Chunk) bool) error {
	for _, id := range fp.tx.SessionChunkIDs(fp.ns, session) {
		c, err := fp.tx.Chunk(id)
		if err != nil {
			return err
		}
		if keep == nil || keep(c) {
			if err := fp.addChunk(c); err != nil {
				return err
			}
		}
	}
	if keep != nil {
		return nil
	}
	fp.addSession(session)
	stored, _, err := fp.tx.SessionMessages(fp.ns, session)
	if err != nil {
		return err
	}
	for _, sm := range stored {
		if err := fp.addMsg(sm, ""); err != nil {
			return err
		}
	}
	return nil
}

func (fp *forgetPlanner) byID(id string) error {
	c, err := fp.tx.Chunk(id)
	if errors.Is(err, core.ErrNotFound) || (err == nil && c.NS != fp.ns) {
		return fmt.Errorf("chunk %q: %w in %s", id, core.ErrNotFound, nsName(fp.ns))
	}
	if err != nil {
		return err
	}
	return fp.addChunk(c)
}

func (fp *forgetPlanner) bySession(session string) error {
	s, err := fp.tx.Session(fp.ns, session)
	if err != nil {
		return err
	}
	if s == nil {
		return fmt.Errorf("session %q: %w in %s", session, core.ErrNotFound, nsName(fp.ns))
	}
	return fp.chunksOf(session, nil)
}

// byFilter takes every session of the namespace, whole with all, or the
// chunks that match expr.
func (fp *forgetPlanner) byFilter(all bool, expr filter.Expr) error {
	var sessions []string
	err := fp.tx.ForEachSession(func(s *store.Session) error {
		if s.NS == fp.ns {
			sessions = append(sessions, s.Session)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var keep func(*store.Chunk) bool
	if !all {
		keep = func(c *store.Chunk) bool { return c.NS == fp.ns && filter.Eval(expr, chunkRecord{c}) }
	}
	for _, s := range sessions {
		if err := fp.chunksOf(s, keep); err != nil {
			return err
		}
	}
	return nil
}

// preview returns the start of a message's text on one line.
func preview(text string) string {
	s := strings.Join(strings.Fields(text), " ")
	if r := []rune(s); len(r) > previewRunes {
		return string(r[:previewRunes]) + "…"
	}
	return s
}

// dropped reports whether none of the messages is stored any more.
func (m *maintainer) dropped(keys map[core.MessageKey]bool) bool {
	gone := true
	m.st.View(func(tx *store.Tx) error {
		for k := range keys {
			if tx.HasMessage(k) {
				gone = false
				break
			}
		}
		return nil
	})
	return gone
}
