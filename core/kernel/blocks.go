package kernel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/render"
)

// memoryBlock is the recalled long-term turns that fit.
type memoryBlock struct {
	header string
	parts  []string
	ids    []string
	costs  []int
	tokens int
}

func (m *memoryBlock) drop(ids map[string]bool) {
	for i := len(m.ids) - 1; i >= 0; i-- {
		if ids[m.ids[i]] {
			m.tokens -= m.costs[i]
			m.parts = slices.Delete(m.parts, i, i+1)
			m.ids = slices.Delete(m.ids, i, i+1)
			m.costs = slices.Delete(m.costs, i, i+1)
		}
	}
	if len(m.parts) == 0 {
		m.tokens = 0
	}
}

func (k *Kernel) memoryBlock(ctx context.Context, msg string, now time.Time, n int, exclude map[string]bool) (memoryBlock, error) {
	b := memoryBlock{header: "## Memories recalled for this message\nVerbatim turns from earlier conversations. Call recall_by_id with a prev or next id to read around one."}
	if k.opts.Config.RecallTopK == 0 || strings.TrimSpace(msg) == "" {
		return b, nil
	}
	headerCost := k.count(b.header) + 2
	if n <= headerCost {
		return b, nil
	}
	q := core.Query{Text: msg, TopK: k.opts.Config.RecallTopK, Namespace: k.Namespace(), Now: now}
	res, err := k.mem.Recall(ctx, q)
	if err == nil && res.ResolvedTime != nil && !hasHit(res.Hits, exclude) {
		// A time phrase in a chat message ("for tonight") need not be
		// about the past: when the window it names holds nothing, search
		// all of memory.
		q.NoTime = true
		res, err = k.mem.Recall(ctx, q)
	}
	if err != nil {
		if errors.Is(err, core.ErrInvalid) {
			return b, nil // a message that is no query, such as only a time phrase
		}
		return b, fmt.Errorf("recalling memories: %w", err)
	}
	used := headerCost
	for i := range res.Hits {
		h := &res.Hits[i]
		if exclude[h.ID] || h.ContextRole != core.RoleHit {
			continue
		}
		var sb strings.Builder
		render.Hit(&sb, h, false)
		part := sb.String()
		c := k.count(part) + 1
		if used+c > n {
			continue
		}
		used += c
		b.parts = append(b.parts, part)
		b.ids = append(b.ids, h.ID)
		b.costs = append(b.costs, c)
	}
	if len(b.parts) > 0 {
		b.tokens = used
	}
	return b, nil
}

// hasHit reports whether hits hold a hit outside exclude.
func hasHit(hits []core.Hit, exclude map[string]bool) bool {
	for i := range hits {
		if hits[i].ContextRole == core.RoleHit && !exclude[hits[i].ID] {
			return true
		}
	}
	return false
}

// profileBlock is the user's profile lines that fit.
type profileBlock struct {
	header string
	lines  []string
	tokens int
}

type fact struct {
	line  string
	score float64
}

func (k *Kernel) profile(ctx context.Context, msg string, now time.Time, n int, exclude map[string]bool) (profileBlock, error) {
	b := profileBlock{header: "## What you know about the user"}
	if k.opts.Config.ProfileItems == 0 {
		return b, nil
	}
	headerCost := k.count(b.header) + 2
	if n <= headerCost {
		return b, nil
	}
	var types []string
	for t := range profileTypes {
		types = append(types, "type = '"+t+"'")
	}
	slices.Sort(types)
	filter := strings.Join(types, " OR ")
	var hits []core.Hit
	// The memories most related to the message, and the newest ones.
	for _, q := range []core.Query{
		{Text: msg, Filter: filter, TopK: 20, NoTime: true},
		{Filter: filter, TopK: 20, NoTime: true, Since: now.AddDate(0, 0, -30)},
	} {
		if strings.TrimSpace(q.Text) == "" && q.Since.IsZero() {
			continue
		}
		q.Namespace, q.Now = k.Namespace(), now
		res, err := k.mem.Recall(ctx, q)
		if err != nil {
			if errors.Is(err, core.ErrInvalid) {
				continue
			}
			return b, fmt.Errorf("reading the profile: %w", err)
		}
		hits = append(hits, res.Hits...)
	}
	seen := map[string]bool{}
	var facts []fact
	for i := range hits {
		h := &hits[i]
		if exclude[h.ID] {
			continue
		}
		age := now.Sub(h.Time).Hours() / 24
		recency := math.Exp(-max(age, 0) / 45)
		for _, m := range h.Memories {
			w, ok := profileTypes[m.Type]
			if !ok {
				continue
			}
			if m.Extractor == "llm" {
				w += 0.2 // distilled by a model: cleaner facts
			}
			for _, f := range m.Facts {
				key := m.Type + "\x00" + strings.ToLower(strings.TrimSpace(f))
				if seen[key] {
					continue
				}
				seen[key] = true
				line := fmt.Sprintf("- %s: %s (%s, id:%s)", m.Type, strings.TrimSpace(f), h.Time.Format("2006-01-02"), h.ID)
				facts = append(facts, fact{line, w*recency + 0.3*h.Relevance})
			}
		}
	}
	slices.SortStableFunc(facts, func(a, b fact) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.line, b.line)
	})
	used := headerCost
	for _, f := range facts {
		if len(b.lines) == k.opts.Config.ProfileItems {
			break
		}
		c := k.count(f.line) + 1
		if used+c > n {
			continue
		}
		used += c
		b.lines = append(b.lines, f.line)
	}
	if len(b.lines) > 0 {
		b.tokens = used
	}
	return b, nil
}
