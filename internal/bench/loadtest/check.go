package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Integrity is what [Check] found in the store after a load.
type Integrity struct {
	// Acked is the number of acknowledged appends; Stored the load's
	// messages in the export.
	Acked, Stored int
	// Lost are acknowledged refs missing from the export; Duplicated refs
	// stored more than once; Altered refs stored with another session,
	// time or text than sent; Unknown refs stored that the load never
	// sent. Each is a violation.
	Lost, Duplicated, Altered, Unknown []string
	// Unacked are refs of appends whose every try failed but that are
	// stored: the store kept them, the client was not told. Not a
	// violation.
	Unacked []string
	// Sessions is the number of load sessions walked, Chunks the chunks
	// their chains visited, ChunksAdded the growth of the store's chunk
	// count during the load (GET /v1/stats).
	Sessions, Chunks, ChunksAdded int
	// Broken describes each anchor-chain violation.
	Broken []string
}

// Err returns nil when nothing was lost, duplicated, altered or broken,
// and otherwise an error that lists the violations.
func (in *Integrity) Err() error {
	var parts []string
	list := func(what string, refs []string) {
		if len(refs) > 0 {
			parts = append(parts, fmt.Sprintf("%d %s (%s)", len(refs), what, head(refs, 8)))
		}
	}
	list("acknowledged appends lost", in.Lost)
	list("messages stored more than once", in.Duplicated)
	list("messages stored altered", in.Altered)
	list("unknown messages stored", in.Unknown)
	list("anchor-chain violations", in.Broken)
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("loadtest: integrity: %s", strings.Join(parts, "; "))
}

func head(s []string, n int) string {
	if len(s) > n {
		return strings.Join(s[:n], "; ") + "; ..."
	}
	return strings.Join(s, "; ")
}

// exportLine is one line of GET /v1/export.
type exportLine struct {
	Session string    `json:"session"`
	Time    time.Time `json:"time"`
	Text    string    `json:"text"`
	Ref     string    `json:"ref"`
}

// turn is a chunk as GET /v1/turns/{id} returns it.
type turn struct {
	ID       string    `json:"id"`
	Prev     string    `json:"prev"`
	Next     string    `json:"next"`
	Session  string    `json:"session"`
	Time     time.Time `json:"time"`
	Messages []struct {
		Time time.Time `json:"time"`
		Ref  string    `json:"ref"`
	} `json:"messages"`
}

// Check reads the store back through the servers of o (any that answers)
// after the load that made rep, and checks the load's sessions:
//
//   - the export (GET /v1/export) holds every acknowledged append exactly
//     once, as sent, and no message the load did not send;
//   - each session's anchor chain, walked with GET /v1/turns/{id} from a
//     chunk that recall finds to the chunk without prev and then along
//     next to the chunk without next, is a list: prev mirrors next, no
//     chunk is visited twice, every chunk belongs to the session, the
//     messages come in time order, and together they are exactly the
//     session's messages in the export;
//   - the chains together hold every chunk the load added (the store's
//     chunk count grew by the number of chunks walked), so no chunk is
//     off its chain. This assumes nothing else wrote to the store during
//     the load.
//
// It returns an error only when the servers could not be read; what it
// found is in the [Integrity], whose Err lists the violations.
func Check(ctx context.Context, o Options, rep *Report) (*Integrity, error) {
	cl := newClient(o)
	in := &Integrity{Acked: len(rep.Acked)}
	prefix := fmt.Sprintf("load-%s-", rep.Tag)

	// 1. The export: every acknowledged append once, as sent.
	data, err := cl.call(ctx, http.MethodGet, "/v1/export", nil)
	if err != nil {
		return nil, fmt.Errorf("loadtest: reading the export: %w", err)
	}
	bySession := map[string][]exportLine{}
	count := map[string]int{}
	stored := map[string]exportLine{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var l exportLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("loadtest: reading an export line %.80q: %w", sc.Text(), err)
		}
		if !strings.HasPrefix(l.Session, prefix) {
			continue
		}
		in.Stored++
		bySession[l.Session] = append(bySession[l.Session], l)
		count[l.Ref]++
		stored[l.Ref] = l
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("loadtest: reading the export: %w", err)
	}
	sent := map[string]Append{}
	for _, a := range rep.Acked {
		sent[a.Ref] = a
		switch l, n := stored[a.Ref], count[a.Ref]; {
		case n == 0:
			in.Lost = append(in.Lost, a.Ref)
		case l.Session != a.Session || !l.Time.Equal(a.Time) || l.Text != a.Text:
			in.Altered = append(in.Altered, fmt.Sprintf("%s: sent %s %s %q, stored %s %s %q",
				a.Ref, a.Session, a.Time.Format(time.RFC3339Nano), a.Text, l.Session, l.Time.Format(time.RFC3339Nano), l.Text))
		}
	}
	failed := map[string]bool{}
	for _, a := range rep.Failed {
		failed[a.Ref] = true
	}
	for ref, n := range count {
		if n > 1 {
			in.Duplicated = append(in.Duplicated, fmt.Sprintf("%s ×%d", ref, n))
		}
		if _, ok := sent[ref]; !ok {
			if failed[ref] {
				in.Unacked = append(in.Unacked, ref)
			} else {
				in.Unknown = append(in.Unknown, ref)
			}
		}
	}
	slices.Sort(in.Duplicated)
	slices.Sort(in.Unacked)
	slices.Sort(in.Unknown)

	// 2. The anchor chains.
	st, err := cl.stats(ctx)
	if err != nil {
		return nil, fmt.Errorf("loadtest: reading the chunk count after the load: %w", err)
	}
	in.ChunksAdded = st.Chunks - rep.BaseChunks
	sessions := make([]string, 0, len(bySession))
	for s := range bySession {
		sessions = append(sessions, s)
	}
	slices.Sort(sessions)
	for _, s := range sessions {
		n, broken, err := walkSession(ctx, cl, s, bySession[s])
		if err != nil {
			return nil, err
		}
		in.Sessions++
		in.Chunks += n
		in.Broken = append(in.Broken, broken...)
	}
	if in.Chunks != in.ChunksAdded {
		in.Broken = append(in.Broken, fmt.Sprintf("the chains hold %d chunks, but the store's chunk count grew by %d (%d → %d)",
			in.Chunks, in.ChunksAdded, rep.BaseChunks, st.Chunks))
	}
	return in, nil
}

// walkSession walks the chain of one session whose exported messages are
// msgs, and returns the chunks it visited and the violations it found.
func walkSession(ctx context.Context, cl *client, session string, msgs []exportLine) (int, []string, error) {
	var broken []string
	bad := func(format string, args ...any) {
		broken = append(broken, "session "+session+": "+fmt.Sprintf(format, args...))
	}
	// A chunk to start from: recall finds one by a marker.
	start := ""
	for _, m := range msgs[:min(len(msgs), 5)] {
		body, _ := json.Marshal(map[string]any{"query": m.Ref, "top_k": 3,
			"filter_expr": fmt.Sprintf("session = '%s'", session)})
		data, err := cl.call(ctx, http.MethodPost, "/v1/recall", body)
		if err != nil {
			return 0, nil, fmt.Errorf("loadtest: recalling %s: %w", m.Ref, err)
		}
		var res struct {
			Results []struct {
				ID   string   `json:"id"`
				Refs []string `json:"refs"`
			} `json:"results"`
		}
		if err := json.Unmarshal(data, &res); err != nil {
			return 0, nil, fmt.Errorf("loadtest: reading recall of %s: %w", m.Ref, err)
		}
		for _, r := range res.Results {
			if slices.Contains(r.Refs, m.Ref) {
				start = r.ID
				break
			}
		}
		if start != "" {
			break
		}
	}
	if start == "" {
		bad("recall finds no chunk holding any of its first messages")
		return 0, broken, nil
	}
	limit := len(msgs) + 2 // a session has at most one chunk per message
	// Back to the head.
	cur, err := getTurn(ctx, cl, start)
	if err != nil {
		return 0, nil, err
	}
	for steps := 0; cur.Prev != ""; steps++ {
		if steps > limit {
			bad("more than %d steps back along prev from %s: a cycle", limit, start)
			return 0, broken, nil
		}
		p, err := getTurn(ctx, cl, cur.Prev)
		if err != nil {
			return 0, nil, err
		}
		if p.Next != cur.ID {
			bad("%s.prev = %s, but %s.next = %q", cur.ID, p.ID, p.ID, p.Next)
		}
		cur = p
	}
	// Forward to the tail.
	seen := map[string]bool{}
	refs := map[string]int{}
	var last time.Time
	n := 0
	for {
		n++
		seen[cur.ID] = true
		if cur.Session != session {
			bad("chunk %s belongs to session %q", cur.ID, cur.Session)
		}
		for _, m := range cur.Messages {
			if m.Time.Before(last) {
				bad("chunk %s: message %s at %s comes after one at %s", cur.ID, m.Ref,
					m.Time.Format(time.RFC3339Nano), last.Format(time.RFC3339Nano))
			}
			last = m.Time
			refs[m.Ref]++
		}
		if cur.Next == "" {
			break
		}
		if seen[cur.Next] {
			bad("%s.next = %s, visited before: a cycle", cur.ID, cur.Next)
			break
		}
		if n > limit {
			bad("more than %d chunks along next", limit)
			break
		}
		nx, err := getTurn(ctx, cl, cur.Next)
		if err != nil {
			return 0, nil, err
		}
		if nx.Prev != cur.ID {
			bad("%s.next = %s, but %s.prev = %q", cur.ID, nx.ID, nx.ID, nx.Prev)
		}
		cur = nx
	}
	// The chain holds exactly the session's messages.
	for _, m := range msgs {
		switch refs[m.Ref] {
		case 1:
		case 0:
			bad("message %s is in no chunk of the chain", m.Ref)
		default:
			bad("message %s is in %d chunks of the chain", m.Ref, refs[m.Ref])
		}
		delete(refs, m.Ref)
	}
	for ref := range refs {
		bad("the chain holds message %q, which the export does not list", ref)
	}
	return n, broken, nil
}

func getTurn(ctx context.Context, cl *client, id string) (*turn, error) {
	data, err := cl.call(ctx, http.MethodGet, "/v1/turns/"+url.PathEscape(id)+"?context=0", nil)
	if err != nil {
		return nil, fmt.Errorf("loadtest: reading turn %s: %w", id, err)
	}
	var res struct {
		Results []turn `json:"results"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("loadtest: reading turn %s: %w", id, err)
	}
	for i := range res.Results {
		if res.Results[i].ID == id {
			return &res.Results[i], nil
		}
	}
	return nil, fmt.Errorf("loadtest: GET /v1/turns/%s answered without that turn", id)
}
