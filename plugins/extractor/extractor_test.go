package extractor_test

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
	"github.com/huimemory/huimemory/plugins/extractor"
)

func init() {
	// plugin.TestPluginGRPCConn logs every stream at debug level.
	hclog.DefaultOutput = io.Discard
}

// recorder returns fixed memories and keeps the chunk it was given.
type recorder struct {
	got  *core.Chunk
	mems []core.Memory
	err  error
}

func (r *recorder) Extract(_ context.Context, c *core.Chunk) ([]core.Memory, error) {
	r.got = c
	return r.mems, r.err
}

func connect(t *testing.T, cfg extractor.ServeConfig) *extractor.Client {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{"extractor": &extractor.Plugin{Config: cfg}})
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense("extractor")
	if err != nil {
		t.Fatal(err)
	}
	return raw.(*extractor.Client)
}

func TestRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 5, 21, 14, 3, 0, time.UTC)
	chunk := &core.Chunk{
		Anchor:    core.Anchor{ID: "a3f2c7", Prev: "k7f2a1"},
		Namespace: "alice", Session: "kyoto", Time: at, End: at.Add(2 * time.Minute),
		File: "2026-W10/2026-03-05/chat_kyoto.md", LineStart: 9, LineEnd: 13, Section: "Plans", Topic: "travel",
		Messages: []core.Message{
			{Session: "kyoto", Time: at, Role: core.RoleUser, Speaker: "Alice", Text: "We go to Kyoto in May."},
			{Session: "kyoto", Time: at.Add(2 * time.Minute), Role: core.RoleAssistant, Text: "Noted."},
		},
	}
	r := &recorder{mems: []core.Memory{
		{Type: "decision", Entities: []string{"Alice", "Kyoto"}, Topic: "travel", Facts: []string{"trip in May"}, Extractor: "rec"},
		{Type: "preference"},
	}}
	c := connect(t, extractor.ServeConfig{Name: "rec", Factory: extractor.Static(r)})
	mems, err := c.Extract(t.Context(), chunk)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(r.mems, mems); d != "" {
		t.Errorf("memories (-want +got):\n%s", d)
	}
	if d := cmp.Diff(chunk, r.got); d != "" {
		t.Errorf("chunk the plugin saw (-sent +got):\n%s", d)
	}
}

func TestErrors(t *testing.T) {
	c := connect(t, extractor.ServeConfig{Factory: extractor.Static(&recorder{err: errors.New("no memories here")})})
	if _, err := c.Extract(t.Context(), &core.Chunk{}); err == nil || err.Error() != "no memories here" {
		t.Errorf("Extract error = %v, want the plugin's message", err)
	}
	if err := c.Configure(t.Context(), map[string]string{"x": "1"}); !errors.Is(err, extractor.ErrUnsupported) {
		t.Errorf("Configure = %v, want ErrUnsupported", err)
	}
}
