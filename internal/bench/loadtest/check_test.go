package loadtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fakeStore is what a fake server serves: chunks with their anchors and
// messages, the export, and the chunk count.
type fakeStore struct {
	chunks map[string]*fakeChunk
	export []exportLine
	extra  int // chunks counted by stats beyond those in chunks
}

type fakeChunk struct {
	id, prev, next, session string
	refs                    []string
	times                   []time.Time
}

func (f *fakeStore) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/stats", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]int{"chunks": len(f.chunks) + f.extra})
	})
	mux.HandleFunc("GET /v1/export", func(w http.ResponseWriter, r *http.Request) {
		enc := json.NewEncoder(w)
		for _, l := range f.export {
			enc.Encode(l)
		}
	})
	mux.HandleFunc("POST /v1/recall", func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Query string }
		json.NewDecoder(r.Body).Decode(&req)
		type hit struct {
			ID   string   `json:"id"`
			Refs []string `json:"refs"`
		}
		var res struct {
			Results []hit `json:"results"`
		}
		for _, c := range f.chunks {
			for _, ref := range c.refs {
				if ref == req.Query {
					res.Results = append(res.Results, hit{c.id, c.refs})
				}
			}
		}
		json.NewEncoder(w).Encode(res)
	})
	mux.HandleFunc("GET /v1/turns/{id}", func(w http.ResponseWriter, r *http.Request) {
		c, ok := f.chunks[r.PathValue("id")]
		if !ok {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		type msg struct {
			Time time.Time `json:"time"`
			Ref  string    `json:"ref"`
		}
		t := map[string]any{"id": c.id, "prev": c.prev, "next": c.next, "session": c.session, "time": c.times[0]}
		var msgs []msg
		for i, ref := range c.refs {
			msgs = append(msgs, msg{c.times[i], ref})
		}
		t["messages"] = msgs
		json.NewEncoder(w).Encode(map[string]any{"results": []any{t}})
	})
	return mux
}

// TestCheckFinds runs Check against a fake server holding a store with
// one fault each, and expects it to name the fault.
func TestCheckFinds(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	// Session load-t-0: m1, m2, m3 in chunks a → b → c. Session load-t-1:
	// m4 and m5 in chunk d. m6 was sent, failed, and not stored.
	sent := []Append{
		{"load-t-0", "m1", at(1), "text m1"}, {"load-t-0", "m2", at(2), "text m2"}, {"load-t-0", "m3", at(3), "text m3"},
		{"load-t-1", "m4", at(4), "text m4"}, {"load-t-1", "m5", at(5), "text m5"},
	}
	failed := []Append{{"load-t-1", "m6", at(6), "text m6"}}
	build := func() *fakeStore {
		f := &fakeStore{chunks: map[string]*fakeChunk{
			"a": {"a", "", "b", "load-t-0", []string{"m1"}, []time.Time{at(1)}},
			"b": {"b", "a", "c", "load-t-0", []string{"m2"}, []time.Time{at(2)}},
			"c": {"c", "b", "", "load-t-0", []string{"m3"}, []time.Time{at(3)}},
			"d": {"d", "", "", "load-t-1", []string{"m4", "m5"}, []time.Time{at(4), at(5)}},
		}}
		for _, a := range sent {
			f.export = append(f.export, exportLine{a.Session, a.Time, a.Text, a.Ref})
		}
		// Another run's session is left alone.
		f.export = append(f.export, exportLine{"load-u-0", at(1), "other", "m1"})
		return f
	}
	for _, tt := range []struct {
		name    string
		fault   func(f *fakeStore)
		want    string // in Err; "" for none
		unacked int
	}{
		{"intact", func(*fakeStore) {}, "", 0},
		{"a failed append stored anyway", func(f *fakeStore) {
			f.export = append(f.export, exportLine{"load-t-1", at(6), "text m6", "m6"})
			f.chunks["d"].refs = append(f.chunks["d"].refs, "m6")
			f.chunks["d"].times = append(f.chunks["d"].times, at(6))
		}, "", 1},
		{"lost", func(f *fakeStore) { f.export = f.export[1:] }, "1 acknowledged appends lost (m1)", 0},
		{"duplicated", func(f *fakeStore) { f.export = append(f.export, f.export[1]) }, "1 messages stored more than once (m2 ×2)", 0},
		{"altered", func(f *fakeStore) { f.export[2].Text = "changed" }, "1 messages stored altered (m3: sent", 0},
		{"unknown", func(f *fakeStore) { f.export = append(f.export, exportLine{"load-t-1", at(7), "x", "m9"}) }, "1 unknown messages stored (m9)", 0},
		{"prev does not mirror next", func(f *fakeStore) { f.chunks["c"].prev = "a" }, `b.next = c, but c.prev = "a"`, 0},
		{"cycle", func(f *fakeStore) { f.chunks["c"].next = "a" }, "c.next = a, visited before: a cycle", 0},
		{"chunk off its chain", func(f *fakeStore) { f.extra = 1 }, "the chains hold 4 chunks, but the store's chunk count grew by 5", 0},
		{"out of time order", func(f *fakeStore) { f.chunks["b"].times[0] = at(9) }, "chunk c: message m3", 0},
		{"message twice in the chain", func(f *fakeStore) { f.chunks["d"].refs = []string{"m4", "m4"} }, "message m4 is in 2 chunks of the chain", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := build()
			tt.fault(f)
			srv := httptest.NewServer(f.handler())
			defer srv.Close()
			rep := &Report{Tag: "t", Acked: sent, Failed: failed}
			in, err := Check(t.Context(), Options{URL: srv.URL}, rep)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if err := in.Err(); err != nil {
				got = err.Error()
			}
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("Err() = %q, want it to hold %q", got, tt.want)
			}
			if len(in.Unacked) != tt.unacked {
				t.Errorf("unacked %v, want %d", in.Unacked, tt.unacked)
			}
			if tt.want == "" && (in.Sessions != 2 || in.Chunks != 4 || in.Stored != 5+tt.unacked) {
				t.Errorf("integrity %s", fmt.Sprintf("%+v", in))
			}
		})
	}
}
