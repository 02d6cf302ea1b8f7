package engine

import (
	"context"
	"path/filepath"

	"github.com/huimemory/huimemory/core"
)

// Grouped ingest. A folder of many small files (an agent's sessions, an
// export of one file per conversation) would cost, file by file, a
// store transaction with its fsync, an index segment, a transcript sync
// and, on a shared home, the store and the index reopened for writing
// and back, for a few dozen messages each; and the records keyed by
// hashes that each writes land on a leaf each, all over a growing store.
// [Engine.IngestSources] takes consecutive small new files as a group, as
// [Engine.IngestSource] takes one file of their messages: up to a batch
// of them in one transaction, more under one stage (ingeststage.go),
// whose batches take file after file and whose publication records every
// file as a tracked source of its own. The same transactions, segments
// and memory as one file of those messages.

// ingestSources is [Engine.IngestSources].
func (w *writer) ingestSources(ctx context.Context, paths []string, opts SourceOptions, done func(i int, res SourceResult, err error)) error {
	opts.DeferTidy = true
	g := &sourceGroup{done: done, abs: map[string]bool{}}
	for i := 0; i < len(paths); i++ {
		path := paths[i]
		if err := ctx.Err(); err != nil {
			return err
		}
		// The same file twice: the second is unchanged once the
		// first is in.
		if abs, err := filepath.Abs(path); err == nil && g.abs[abs] {
			if err := w.flushGroup(ctx, g); err != nil {
				return err
			}
		}
		r := w.readSource(path, opts)
		f := &groupFile{i: i, r: r, res: r.res, err: r.err}
		switch {
		case r.err != nil || r.res.Unchanged:
			r.close()
			g.report(f)
		case r.old == "" && !r.more:
			r.close()
			g.add(f)
			if g.msgs > r.limit || g.bytes > stageBatchBytes {
				// More than a batch: these files and the small new
				// ones after them go in under a stage.
				next, err := w.ingestGroupStaged(ctx, g, paths, i+1, opts)
				if err != nil {
					return err
				}
				i = next - 1
			}
		default:
			if err := w.flushGroup(ctx, g); err != nil {
				r.close()
				return err
			}
			res, err := w.ingestRead(ctx, r, opts)
			r.close()
			done(i, res, err)
		}
	}
	return w.flushGroup(ctx, g)
}

// sourceGroup is the small new files read and not written yet, and the
// results that wait for them to be reported in order.
type sourceGroup struct {
	done    func(int, SourceResult, error)
	files   []*groupFile // in order: members, and results held back behind them
	members int
	msgs    int // messages of the members
	bytes   int // and their text
	abs     map[string]bool
}

// groupFile is one file of a group, or a result held back behind one.
type groupFile struct {
	i      int
	r      *sourceRead
	member bool
	res    SourceResult
	err    error
	// What a grouped stage did with the file's messages (stageGroup).
	n, added, dups int
	sessions       map[[2]string]bool // while its messages are planned
	nsessions      int
	late           []core.MessageKey // claims written at the publication
	chunks         int
	removed        int
	fails          []ExtractFailure
}

func (g *sourceGroup) add(f *groupFile) {
	f.member = true
	g.files = append(g.files, f)
	g.members++
	g.msgs += len(f.r.first)
	g.bytes += textBytes(f.r.first)
	g.abs[f.r.abs] = true
}

// report reports a file's result now, or after the members before it.
func (g *sourceGroup) report(f *groupFile) {
	if g.members == 0 {
		g.done(f.i, f.res, f.err)
		return
	}
	g.files = append(g.files, f)
}

func textBytes(msgs []core.Message) int {
	n := 0
	for i := range msgs {
		n += len(msgs[i].Text)
	}
	return n
}

// flushGroup writes the group's members, reports every file it holds and
// empties it.
func (w *writer) flushGroup(ctx context.Context, g *sourceGroup) error {
	if g.members > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		var members []*groupFile
		for _, f := range g.files {
			if f.member {
				members = append(members, f)
			}
		}
		if err := w.ingestGroup(ctx, members); err != nil {
			for _, f := range members {
				f.err = err
			}
		}
	}
	g.reportAll()
	return nil
}

// reportAll reports every file the group holds, whose members are
// written (or failed), and empties it.
func (g *sourceGroup) reportAll() {
	for _, f := range g.files {
		g.done(f.i, f.res, f.err)
	}
	g.files, g.members, g.msgs, g.bytes = g.files[:0], 0, 0, 0
	clear(g.abs)
}

// sessionWrote is what a group's commit wrote of one session.
type sessionWrote struct {
	changed, removed int
	fails            []ExtractFailure
}

// ingestGroup writes the messages of new files in one transaction that
// records each file as a source, and sets each file's result: its
// messages, the new ones and the duplicates, and the chunks, sessions
// and failed extractions of the sessions it was the first of the group
// to add to. It returns an error when the group was not written, or was
// and the index or the transcripts could not be brought up to date.
func (w *writer) ingestGroup(ctx context.Context, members []*groupFile) error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if err := w.writable(); err != nil {
		return err
	}
	if err := w.discardStages(); err != nil {
		return err
	}
	var msgs []core.Message
	var srcs []*source
	var grouped, alone []*groupFile
	for _, f := range members {
		keys := make([]core.MessageKey, len(f.r.first))
		for i := range f.r.first {
			keys[i] = f.r.first[i].Key()
		}
		track, err := w.planTracking(f.r.abs, keys)
		if err != nil {
			return err
		}
		if len(track.drop) > 0 || len(track.unclaim) > 0 {
			// The path holds claims without a hash (an interrupted
			// prune, say): replaced on its own, after the group.
			alone = append(alone, f)
			continue
		}
		grouped = append(grouped, f)
		msgs = append(msgs, f.r.first...)
		srcs = append(srcs, &source{name: f.r.abs, digest: f.r.digest, track: track})
	}
	if len(grouped) > 0 {
		wrote := map[[2]string]sessionWrote{}
		src := &source{group: srcs, deferTidy: true, wrote: func(p *sessionPlan, changed, removed int) {
			wrote[[2]string{p.ns, p.session}] = sessionWrote{changed, removed, p.extractFails}
		}}
		ir, err := w.ingestLocked(ctx, msgs, src)
		if len(wrote) > 0 || err == nil {
			shareGroupResult(grouped, ir, wrote)
		}
		if err != nil {
			return err
		}
	}
	for _, f := range alone {
		f.res, f.err = w.ingestWhole(ctx, f.r, f.r.first, true)
	}
	return nil
}

// shareGroupResult sets each file's result from the group's: the
// messages are counted per file, the sessions' chunks and failed
// extractions go to the first file that added to the session.
func shareGroupResult(files []*groupFile, ir IngestResult, wrote map[[2]string]sessionWrote) {
	dup := make(map[int]bool, len(ir.DuplicateIndexes))
	for _, i := range ir.DuplicateIndexes {
		dup[i] = true
	}
	owned := map[[2]string]bool{}
	at := 0
	for _, f := range files {
		r := IngestResult{Source: f.r.path, Messages: len(f.r.first)}
		mine := map[[2]string]bool{}
		for j := range f.r.first {
			if dup[at+j] {
				r.Duplicates++
				continue
			}
			r.Added++
			sk := [2]string{f.r.first[j].Namespace, f.r.first[j].Session}
			if mine[sk] {
				continue
			}
			mine[sk] = true
			r.Sessions++
			if owned[sk] {
				continue
			}
			owned[sk] = true
			w := wrote[sk]
			r.Chunks += w.changed
			r.Removed += w.removed
			r.ExtractFailures = append(r.ExtractFailures, w.fails...)
		}
		at += len(f.r.first)
		f.res.IngestResult = r
	}
}

// groupStageBatches bounds a grouped stage: once it holds this many
// batches of messages, it takes no more files, and is published, so that
// the files are reported and an interruption costs at most this much.
const groupStageBatches = 64

// ingestGroupStaged ingests the group's files, which hold more than a
// batch, and the small new files that follow them in paths from next on,
// under one stage (ingeststage.go), as a large file goes in; then it
// reports them and ingests the file that ended the group, if it read one
// (a large or changed file). It returns the index in paths of the next
// file to read.
func (w *writer) ingestGroupStaged(ctx context.Context, g *sourceGroup, paths []string, next int, opts SourceOptions) (int, error) {
	sg := &stageGroup{owners: map[[2]string]*groupFile{}, chunks: map[[2]string]int{}, wroteDeferred: map[[2]string]sessionWrote{}}
	feed := &groupFeed{w: w, opts: opts, paths: paths, i: next, g: g, sg: sg}
	var first *groupFile
	for _, f := range g.files {
		if f.member {
			feed.take(f)
			if first == nil {
				first = f
			}
		}
	}
	limit := first.r.limit
	feed.limit = limit
	batch, _, _ := pullBatch(feed.pull, limit) // the feed fails no pull: a bad file is a result
	_, err := w.ingestStaged(ctx, first.r.abs, first.r.digest, batch, feed.pull, limit, true, sg)
	for _, f := range sg.members {
		if err != nil {
			f.err = err
		}
	}
	g.reportAll()
	if err := ctx.Err(); err != nil {
		if feed.stopped != nil {
			feed.stopped.r.close()
		}
		return feed.i, err
	}
	if st := feed.stopped; st != nil {
		res, err := w.ingestRead(ctx, st.r, opts)
		st.r.close()
		g.done(st.i, res, err)
	}
	return feed.i, nil
}

// groupFeed yields a grouped stage's messages: those of the files taken
// so far, then of the small new files that follow in paths, read one
// after the other. It stops at the end of paths, at a file it cannot take
// (a large new one or a changed one, kept in stopped for the caller), at
// a file already in the group, or once the stage holds
// groupStageBatches batches. Files that are unchanged or cannot be read
// are results, held in the group behind its members.
type groupFeed struct {
	w       *writer
	opts    SourceOptions
	paths   []string
	i       int // the next path to read
	g       *sourceGroup
	sg      *stageGroup
	queue   []*groupFile // files taken, their messages not yielded yet
	cur     []core.Message
	fed     int
	limit   int
	ended   bool
	stopped *groupFile
}

// take adds a file to the stage's members.
func (f *groupFeed) take(gf *groupFile) {
	if !gf.member {
		f.g.add(gf)
	}
	gf.n = len(gf.r.first)
	f.sg.members = append(f.sg.members, gf)
	f.queue = append(f.queue, gf)
}

// pull yields the next message, in the order of the files.
func (f *groupFeed) pull() (core.Message, error, bool) {
	for len(f.cur) == 0 {
		if len(f.queue) > 0 {
			f.cur, f.queue[0].r.first = f.queue[0].r.first, nil
			f.queue = f.queue[1:]
			continue
		}
		if f.ended || f.i >= len(f.paths) || f.fed >= groupStageBatches*f.limit {
			f.ended = true
			return core.Message{}, nil, false
		}
		if abs, err := filepath.Abs(f.paths[f.i]); err == nil && f.g.abs[abs] {
			f.ended = true // the same file again: unchanged, once the group is in
			return core.Message{}, nil, false
		}
		r := f.w.readSource(f.paths[f.i], f.opts)
		gf := &groupFile{i: f.i, r: r, res: r.res, err: r.err}
		f.i++
		switch {
		case r.err != nil || r.res.Unchanged:
			r.close()
			f.g.report(gf)
		case r.old == "" && !r.more:
			r.close()
			f.take(gf)
		default:
			f.stopped, f.ended = gf, true
			return core.Message{}, nil, false
		}
	}
	m := f.cur[0]
	f.cur = f.cur[1:]
	f.fed++
	return m, nil, true
}

// stageGroup is the files of a grouped stage: which file each message the
// stage plans comes from (the feed yields them in the order of members),
// and what became of each file's messages, for its result.
type stageGroup struct {
	members  []*groupFile
	at, used int // the file of the next message: members[at], of which used were planned
	// owners is the first file that added to each session, which its
	// chunks are counted for; chunks is each staged session's chunks
	// after the last batch, wroteDeferred what the publication wrote of
	// each session stored before the stage.
	owners        map[[2]string]*groupFile
	chunks        map[[2]string]int
	wroteDeferred map[[2]string]sessionWrote
	deferredBy    []*groupFile // the file of each of the stage's deferred messages
}

// owner returns the file of the next message planned; nil when g is.
func (g *stageGroup) owner() *groupFile {
	if g == nil {
		return nil
	}
	for g.used >= g.members[g.at].n {
		g.members[g.at].endMessages()
		g.at++
		g.used = 0
	}
	g.used++
	return g.members[g.at]
}

// endMessages counts a file's sessions once its last message is planned.
func (f *groupFile) endMessages() {
	f.nsessions, f.sessions = len(f.sessions), nil
}

// addMsg counts one of f's messages that the stage stores, in session sk.
func (g *stageGroup) addMsg(f *groupFile, sk [2]string) {
	f.added++
	if f.sessions == nil {
		f.sessions = map[[2]string]bool{}
	}
	f.sessions[sk] = true
	if g.owners[sk] == nil {
		g.owners[sk] = f
	}
}

// deferMsg counts one of f's messages that goes, at the publication, to
// session sk, which was stored before the stage.
func (g *stageGroup) deferMsg(f *groupFile, sk [2]string) {
	g.addMsg(f, sk)
	g.deferredBy = append(g.deferredBy, f)
}

// wrote notes what a committed batch wrote of a session; g may be nil.
func (g *stageGroup) wrote(p *sessionPlan) {
	if g == nil {
		return
	}
	sk := [2]string{p.ns, p.session}
	g.chunks[sk] = len(p.chunks)
	if f := g.owners[sk]; f != nil {
		f.fails = append(f.fails, p.extractFails...)
	}
}

// source is what publishes the stage: every member, recorded with its
// hash and its late claims, in the publishing transaction.
func (g *stageGroup) source(run *stageRun, deferTidy bool) *source {
	srcs := make([]*source, len(g.members))
	for i, f := range g.members {
		srcs[i] = &source{name: f.r.abs, digest: f.r.digest, track: &tracking{drop: map[core.MessageKey]bool{}, claim: f.late}}
	}
	return &source{group: srcs, stage: run, deferTidy: deferTidy, wrote: func(p *sessionPlan, changed, removed int) {
		g.wroteDeferred[[2]string{p.ns, p.session}] = sessionWrote{changed, removed, p.extractFails}
	}}
}

// finish sets each member's result once the publishing ingest (of the
// deferred messages) returned r.
func (g *stageGroup) finish(r IngestResult) {
	for ; g.at < len(g.members); g.at++ {
		g.members[g.at].endMessages()
	}
	for _, j := range r.DuplicateIndexes {
		if j < len(g.deferredBy) {
			f := g.deferredBy[j]
			f.added--
			f.dups++
		}
	}
	for sk, f := range g.owners {
		w := g.wroteDeferred[sk]
		f.chunks += g.chunks[sk] + w.changed
		f.removed += w.removed
		f.fails = append(f.fails, w.fails...)
	}
	for _, f := range g.members {
		f.res.IngestResult = IngestResult{Source: f.r.path, Messages: f.n, Added: f.added, Duplicates: f.dups,
			Sessions: f.nsessions, Chunks: f.chunks, Removed: f.removed, ExtractFailures: f.fails}
	}
}
