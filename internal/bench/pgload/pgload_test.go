package pgload

import (
	"testing"

	"github.com/huimemory/huimemory/internal/bench/loadtest"
	"github.com/huimemory/huimemory/internal/gobuild"
	"github.com/huimemory/huimemory/internal/pgtest"
)

var huimem string

// TestMain builds huimem once. Each test starts its own PostgreSQL
// through pgtest.DSN (gobuild.Main runs the tests, so pgtest.Main cannot
// wrap them too).
func TestMain(m *testing.M) {
	gobuild.Main(m, "../../../cmd/huimem", "huimem", &huimem)
}

// fast makes the servers quick to start and cheap to run: the hash
// embedder, built-ins in process.
var fast = []string{"HUIMEM_EMBEDDING_NAME=hash", "HUIMEM_PLUGINS_SUBPROCESS=false"}

// TestSharedDatabase runs a bounded load over several `huimem serve`
// processes on one PostgreSQL database, kills one with SIGKILL at half
// time, and checks that every acknowledged append is stored exactly once
// and every session's anchor chain is intact.
func TestSharedDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and huimem serve processes")
	}
	for _, tt := range []struct {
		name              string
		servers, kill     int
		clients, requests int
		sessions          int
	}{
		{"three servers, one killed halfway", 3, 1, 8, 400, 6},
		{"two servers, many clients on few sessions", 2, -1, 8, 300, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dsn := pgtest.DSN(t)
			res, err := Run(t.Context(), Options{Bin: huimem, DSN: dsn, Servers: tt.servers, Env: fast, Dir: t.TempDir()},
				loadtest.Options{Clients: tt.clients, Requests: tt.requests, AppendShare: 0.3, Sessions: tt.sessions, Seed: 7}, tt.kill)
			if err != nil {
				t.Fatal(err)
			}
			rep, in := res.Report, res.Integrity
			t.Logf("%d requests on %d servers: %d appends, %d retries; %d sessions, %d chunks walked; phases %+v",
				rep.Requests, rep.Servers, rep.Appends, rep.Retries, in.Sessions, in.Chunks, rep.Phases)
			if err := res.Err(); err != nil {
				t.Fatalf("%v\nthe servers' log:\n%s", err, tail(res.Log, 8000))
			}
			if rep.Recalls+rep.Appends != tt.requests || rep.Appends == 0 || in.Acked != rep.Appends || in.Stored != rep.Appends {
				t.Errorf("counts: %d recalls + %d appends of %d requests; %d acknowledged, %d stored", rep.Recalls, rep.Appends, tt.requests, in.Acked, in.Stored)
			}
			if in.Sessions != tt.sessions || in.Chunks == 0 {
				t.Errorf("walked %d sessions (want %d) and %d chunks", in.Sessions, tt.sessions, in.Chunks)
			}
			if tt.kill >= 0 {
				if len(rep.Phases) != 2 || rep.Phases[1].Requests == 0 {
					t.Errorf("phases %+v, want before and after the kill", rep.Phases)
				}
				// The clients of the killed server meet it gone, and
				// move on.
				if rep.Retries == 0 {
					t.Errorf("no request was retried after server %d was killed", tt.kill)
				}
			}
		})
	}
}
