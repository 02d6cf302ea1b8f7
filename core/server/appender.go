package server

import (
	"context"
	"sync"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
)

// maxGroup bounds the messages one group commit writes.
const maxGroup = 1024

// appender group-commits appends: requests that arrive while a commit is
// running are written together by the next one, in one engine ingest (one
// transaction, one index batch, one fsync). Under concurrent load this
// turns N serial commits into a few, and no request waits for more than
// the commit in progress and its own.
//
// There is no background goroutine: the first request to find no commit
// running becomes the leader and commits batches until its own is done,
// then hands the rest to a new leader.
type appender struct {
	mem     Memory
	mu      sync.Mutex
	pending []*appendJob
	running bool
}

type appendJob struct {
	msgs []core.Message
	res  engine.IngestResult
	err  error
	done chan struct{}
}

// Ingest stores msgs, all or none, possibly together with other requests'
// messages. The result counts only msgs. The commit is not cancelled when
// ctx is: an accepted append is either wholly stored or not at all.
func (a *appender) Ingest(ctx context.Context, msgs []core.Message) (engine.IngestResult, error) {
	for i := range msgs {
		if err := msgs[i].Validate(); err != nil {
			// Fail alone rather than in someone else's group.
			return a.mem.Ingest(ctx, msgs)
		}
	}
	job := &appendJob{msgs: msgs, done: make(chan struct{})}
	a.mu.Lock()
	a.pending = append(a.pending, job)
	if a.running {
		a.mu.Unlock()
		<-job.done
		return job.res, job.err
	}
	a.running = true
	a.mu.Unlock()
	a.lead(job)
	return job.res, job.err
}

// lead commits pending groups until mine is done, then passes the lead on.
func (a *appender) lead(mine *appendJob) {
	for {
		a.mu.Lock()
		if len(a.pending) == 0 {
			a.running = false
			a.mu.Unlock()
			return
		}
		if mine != nil && isDone(mine) {
			// Mine is written; a new leader takes the rest.
			a.mu.Unlock()
			go a.lead(nil)
			return
		}
		n, size := 0, 0
		for n < len(a.pending) && (n == 0 || size+len(a.pending[n].msgs) <= maxGroup) {
			size += len(a.pending[n].msgs)
			n++
		}
		group := a.pending[:n:n]
		a.pending = a.pending[n:]
		a.mu.Unlock()
		a.commit(group)
	}
}

func isDone(j *appendJob) bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// commit writes a group in one ingest. If it fails and the group holds
// several requests, each is retried alone so that one bad request cannot
// fail the others.
func (a *appender) commit(group []*appendJob) {
	ctx := context.Background()
	if len(group) == 1 {
		j := group[0]
		j.res, j.err = a.mem.Ingest(ctx, j.msgs)
		close(j.done)
		return
	}
	var all []core.Message
	for _, j := range group {
		all = append(all, j.msgs...)
	}
	res, err := a.mem.Ingest(ctx, all)
	if err != nil {
		for _, j := range group {
			j.res, j.err = a.mem.Ingest(ctx, j.msgs)
			close(j.done)
		}
		return
	}
	off := 0
	for _, j := range group {
		n := len(j.msgs)
		dups := 0
		for _, d := range res.DuplicateIndexes {
			if d >= off && d < off+n {
				dups++
				j.res.DuplicateIndexes = append(j.res.DuplicateIndexes, d-off)
			}
		}
		j.res.Messages, j.res.Added, j.res.Duplicates = n, n-dups, dups
		j.res.Chunks, j.res.Removed, j.res.Sessions = res.Chunks, res.Removed, res.Sessions
		off += n
		close(j.done)
	}
}

// grouped is the server's memory, with appends group-committed.
type grouped struct {
	Memory
	app *appender
}

func (g grouped) Ingest(ctx context.Context, msgs []core.Message) (engine.IngestResult, error) {
	return g.app.Ingest(ctx, msgs)
}
