package loadtest

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/server"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/internal/bench/synth"
	"github.com/huimemory/huimemory/plugins/host"
)

// crashListener is a listener that can fail like a killed process: Crash
// closes it and every connection it accepted.
type crashListener struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func (l *crashListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

func (l *crashListener) Crash() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
	return l.Listener.Close()
}

// TestLoad runs a small mixed load against real servers on loopback (one,
// or several over one engine with one crashing halfway) and checks that
// nothing failed, every append is readable afterwards, and Check finds
// the store intact.
func TestLoad(t *testing.T) {
	for _, tt := range []struct {
		name              string
		servers, sessions int
		share             float64
		crash             bool
	}{
		{"one server, a session per client", 1, 0, 0.3, false},
		{"three servers, one crashes halfway, shared sessions", 3, 5, 0.3, true},
		{"recalls only", 1, 0, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			e, err := host.Open(ctx, core.Config{Storage: core.StorageConfig{Home: t.TempDir()}}, engine.Options{}, host.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if _, err := e.Ingest(ctx, synth.Corpus(synth.Options{Seed: 3, Pairs: 300})); err != nil {
				t.Fatal(err)
			}
			var urls []string
			var lns []*crashListener
			for range tt.servers {
				s, err := server.New(e, server.Options{Tools: tools.Options{Remember: true}})
				if err != nil {
					t.Fatal(err)
				}
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				cl := &crashListener{Listener: ln}
				lns = append(lns, cl)
				go s.Serve(ctx, cl)
				urls = append(urls, "http://"+ln.Addr().String())
			}
			o := Options{URLs: urls, Requests: 300, Clients: 8, AppendShare: tt.share, Sessions: tt.sessions, Seed: 1, Timeout: 2 * time.Minute}
			if tt.crash {
				o.Halfway = lns[1].Crash
			}
			rep, err := Run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Errors != 0 || len(rep.Missing) != 0 {
				t.Fatalf("%d errors (first: %s), missing appends %v", rep.Errors, rep.FirstError, rep.Missing)
			}
			if rep.Recalls+rep.Appends != 300 || (rep.Appends == 0) != (tt.share == 0) || rep.Verified != rep.Appends || len(rep.Acked) != rep.Appends {
				t.Fatalf("report %+v", rep)
			}
			if rep.Recall.P50 <= 0 || rep.Recall.P99 < rep.Recall.P50 || (tt.share > 0) != (rep.Append.P50 > 0) {
				t.Errorf("per-kind latencies: recall %+v, append %+v", rep.Recall, rep.Append)
			}
			wantPhases := 1
			if tt.crash {
				wantPhases = 2
				if rep.Retries == 0 {
					t.Errorf("no retries after a server crashed")
				}
			}
			n := 0
			for _, p := range rep.Phases {
				n += p.Requests
			}
			if len(rep.Phases) != wantPhases || n != 300 {
				t.Errorf("phases %+v, want %d of 300 requests in all", rep.Phases, wantPhases)
			}
			in, err := Check(ctx, o, rep)
			if err != nil {
				t.Fatal(err)
			}
			if err := in.Err(); err != nil {
				t.Fatal(err)
			}
			if in.Stored != rep.Appends || in.Chunks != in.ChunksAdded || (in.Chunks == 0) != (tt.share == 0) {
				t.Errorf("integrity %+v", in)
			}
		})
	}
}
