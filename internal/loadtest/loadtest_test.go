package loadtest

import (
	"net"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/server"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/internal/synth"
	"github.com/huimemory/huimemory/plugins/host"
)

// TestLoad runs a small mixed load against a real server on loopback and
// checks that nothing failed and every append is readable afterwards.
func TestLoad(t *testing.T) {
	ctx := t.Context()
	e, err := host.Open(ctx, core.Config{Storage: core.StorageConfig{Home: t.TempDir()}}, engine.Options{}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Ingest(ctx, synth.Corpus(synth.Options{Seed: 3, Pairs: 300})); err != nil {
		t.Fatal(err)
	}
	s, err := server.New(e, server.Options{Tools: tools.Options{Remember: true}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ctx, ln)
	rep, err := Run(ctx, Options{URL: "http://" + ln.Addr().String(), Requests: 300, Clients: 8, Seed: 1, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 || len(rep.Missing) != 0 {
		t.Fatalf("%d errors (first: %s), missing appends %v", rep.Errors, rep.FirstError, rep.Missing)
	}
	if rep.Recalls+rep.Appends != 300 || rep.Appends == 0 || rep.Verified != rep.Appends {
		t.Fatalf("report %+v", rep)
	}
}
