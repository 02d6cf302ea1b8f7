package chunker_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/chunker"
)

func init() {
	// plugin.TestPluginGRPCConn logs every stream at debug level.
	hclog.DefaultOutput = io.Discard
}

// recorder returns fixed spans and keeps the messages it was given.
type recorder struct {
	got   []core.SessionMessage
	spans []core.Span
	err   error
}

func (r *recorder) Chunk(_ context.Context, msgs []core.SessionMessage) ([]core.Span, error) {
	r.got = msgs
	return r.spans, r.err
}

func connect(t *testing.T, cfg chunker.ServeConfig) *chunker.Client {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{"chunker": &chunker.Plugin{Config: cfg}})
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense("chunker")
	if err != nil {
		t.Fatal(err)
	}
	return raw.(*chunker.Client)
}

func TestRoundTrip(t *testing.T) {
	cst := time.FixedZone("", 8*3600)
	msgs := []core.SessionMessage{
		{Message: core.Message{Namespace: "alice", Session: "s1", Time: time.Date(2026, 3, 5, 21, 14, 3, 500, cst),
			Role: core.RoleUser, Speaker: "Alice", Text: "第一行\nsecond line", Ref: "D1:3"}, HeaderLine: 1, TextStart: 2, TextEnd: 3},
		{Message: core.Message{Session: "s1", Time: time.Date(2026, 3, 5, 13, 15, 0, 0, time.UTC),
			Role: core.RoleAssistant, Text: "ok"}, HeaderLine: 5, TextStart: 6, TextEnd: 6},
	}
	r := &recorder{spans: []core.Span{
		{From: 0, To: 1, LineStart: 1, LineEnd: 3, Text: "第一行", Section: "Trip > Day 1"},
		{From: 0, To: 2, LineStart: 3, LineEnd: 6},
	}}
	c := connect(t, chunker.ServeConfig{Name: "rec", Version: "v0.1.0", Factory: chunker.Static(r)})
	spans, err := c.Chunk(t.Context(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(r.spans, spans); d != "" {
		t.Errorf("spans (-want +got):\n%s", d)
	}
	// Times arrive as the same instant in the same UTC offset.
	if d := cmp.Diff(msgs, r.got, cmp.Comparer(func(a, b time.Time) bool {
		_, ao := a.Zone()
		_, bo := b.Zone()
		return a.Equal(b) && ao == bo
	})); d != "" {
		t.Errorf("messages the plugin saw (-sent +got):\n%s", d)
	}
	pi, err := c.PluginInfo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := (chunker.PluginInfo{Name: "rec", Version: "v0.1.0"}); pi != want {
		t.Errorf("PluginInfo = %+v, want %+v", pi, want)
	}
}

func TestErrors(t *testing.T) {
	c := connect(t, chunker.ServeConfig{Factory: chunker.Static(&recorder{err: errors.New("cannot cut this")})})
	if _, err := c.Chunk(t.Context(), nil); err == nil || err.Error() != "cannot cut this" {
		t.Errorf("Chunk error = %v, want the plugin's message", err)
	}
	if err := c.Configure(t.Context(), map[string]string{"size": "3"}); !errors.Is(err, chunker.ErrUnsupported) {
		t.Errorf("Configure = %v, want ErrUnsupported", err)
	}
}
