package llm

import (
	"context"
	"time"
)

// SetSleep replaces the wait between attempts, so that tests can record
// the backoff instead of waiting it out.
func SetSleep(x *Extractor, f func(ctx context.Context, d time.Duration) error) { x.sleep = f }
