package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// ExtractFailure is one extraction that failed during an ingest. The chunk
// was stored without that extractor's memories; the extraction is retried
// later by [Engine.RetryExtractions], which every ingest runs for a few
// chunks at most once per [RetryInterval].
type ExtractFailure struct {
	Session   string    `json:"session"`
	Time      time.Time `json:"time"`
	Extractor string    `json:"extractor"`
	Error     string    `json:"error"`
}

// RetryInterval is how often an ingest retries failed extractions, and
// retryBatch how many chunks it retries then.
const (
	RetryInterval = 30 * time.Second
	retryBatch    = 16
)

// maybeRetryExtractions retries a few failed extractions after an ingest,
// unless the ingest itself just saw one fail or the last pass was recent.
// The caller holds writeMu.
func (w *writer) maybeRetryExtractions(ctx context.Context, justFailed bool) {
	if justFailed || len(w.extractors) == 0 || time.Since(w.lastRetry) < RetryInterval {
		return
	}
	w.lastRetry = time.Now()
	if _, err := w.retryExtractionsLocked(ctx, retryBatch); err != nil {
		w.logf("retrying failed extractions: %v", err)
	}
}

// RetryResult says what [Engine.RetryExtractions] did.
type RetryResult struct {
	// Retried chunks, of which Done now have all their memories; Left
	// chunks still have extractions pending (including those not tried).
	Retried, Done, Left int
}

// retryExtractions is [Engine.RetryExtractions].
func (w *writer) retryExtractions(ctx context.Context, limit int) (RetryResult, error) {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if err := w.writable(); err != nil {
		return RetryResult{}, err
	}
	return w.retryExtractionsLocked(ctx, limit)
}

func (w *writer) retryExtractionsLocked(ctx context.Context, limit int) (RetryResult, error) {
	var res RetryResult
	var ids []string
	w.st.View(func(tx *store.Tx) error { ids, _ = tx.PendingExtracts(limit); return nil })
	for _, id := range ids {
		var rec *store.Chunk
		var chunk *core.Chunk
		err := w.st.View(func(tx *store.Tx) error {
			var err error
			if rec, err = tx.Chunk(id); err != nil {
				return err
			}
			chunk, err = w.hydrate(tx, rec)
			return err
		})
		if errors.Is(err, core.ErrNotFound) {
			w.st.Update(func(tx *store.Tx) error { return tx.MarkPendingExtract(id, false) })
			continue
		}
		if err != nil {
			return res, err
		}
		res.Retried++
		var still []string
		mems := slices.Clone(rec.Memories)
		topic := rec.Topic
		for i, x := range w.extractors {
			name := w.extractorName(i)
			if !slices.Contains(rec.PendingExtract, name) {
				continue
			}
			got, err := x.Extract(ctx, chunk)
			if err != nil {
				if ctx.Err() != nil {
					return res, err
				}
				still = append(still, name)
				w.logf("extractor %s failed again on chunk %s: %v", name, id, err)
				continue
			}
			for _, m := range got {
				if m.Extractor == "" {
					m.Extractor = name
				}
				if topic == "" && m.Topic != "" {
					topic = m.Topic
				}
				mems = append(mems, m)
			}
		}
		// Extractors no longer configured are not in still: dropped.
		err = w.st.Update(func(tx *store.Tx) error {
			cur, err := tx.Chunk(id)
			if err != nil {
				return err
			}
			if cur.Hash != rec.Hash {
				return nil // re-cut meanwhile: the new chunk was extracted afresh
			}
			cur.Memories, cur.Topic, cur.PendingExtract = mems, topic, still
			if err := tx.PutChunk(cur, true); err != nil {
				return err
			}
			return tx.MarkPendingExtract(id, len(still) > 0)
		})
		if err != nil && !errors.Is(err, core.ErrNotFound) {
			return res, fmt.Errorf("storing the memories of chunk %s: %w", id, err)
		}
		if len(still) == 0 {
			res.Done++
		}
	}
	w.st.View(func(tx *store.Tx) error { _, res.Left = tx.PendingExtracts(1); return nil })
	if res.Retried > 0 {
		if err := w.syncDerived(ctx); err != nil {
			return res, err
		}
	}
	return res, nil
}
