package embedder_test

import (
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/embedder"
)

func init() {
	// plugin.TestPluginGRPCConn logs every stream at debug level.
	hclog.DefaultOutput = io.Discard
}

// fake is an embedder whose answers the test sets.
type fake struct {
	info    core.EmbedderInfo
	vecs    func(texts []string) [][]float32
	err     error
	options map[string]string
	version string
}

func (f *fake) Info(context.Context) (core.EmbedderInfo, error) { return f.info, nil }

func (f *fake) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.vecs(texts), nil
}

// configurable is a fake that takes options and has a version.
type configurable struct{ *fake }

func (c configurable) Configure(_ context.Context, options map[string]string) error {
	if options["fail"] != "" {
		return errors.New("bad option fail")
	}
	c.options = options
	return nil
}

func (c configurable) Version() string { return c.version }

func ramp(dim int) func([]string) [][]float32 {
	return func(texts []string) [][]float32 {
		out := make([][]float32, len(texts))
		for i, t := range texts {
			out[i] = make([]float32, dim)
			for j := range out[i] {
				out[i][j] = float32(len(t)) + float32(j)/10
			}
		}
		return out
	}
}

// connect serves cfg over in-process gRPC and returns the host's client.
func connect(t *testing.T, cfg embedder.ServeConfig) *embedder.Client {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{"embedder": &embedder.Plugin{Config: cfg}})
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense("embedder")
	if err != nil {
		t.Fatal(err)
	}
	return raw.(*embedder.Client)
}

func TestRoundTrip(t *testing.T) {
	f := &fake{info: core.EmbedderInfo{Name: "fake", Model: "ramp", Dim: 3}, vecs: ramp(3), version: "v1.2.3"}
	c := connect(t, embedder.ServeConfig{Factory: embedder.Static(configurable{f})})
	ctx := t.Context()
	if err := c.Configure(ctx, map[string]string{"lang": "en"}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"lang": "en"}, f.options); d != "" {
		t.Errorf("options (-want +got):\n%s", d)
	}
	pi, err := c.PluginInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (embedder.PluginInfo{Name: "fake", Model: "ramp", Dim: 3, Version: "v1.2.3"}); pi != want {
		t.Errorf("PluginInfo = %+v, want %+v", pi, want)
	}
	texts := []string{"a", "", "三个字"}
	got, err := c.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(ramp(3)(texts), got); d != "" {
		t.Errorf("vectors (-want +got):\n%s", d)
	}
}

func TestOptions(t *testing.T) {
	ctx := t.Context()
	f := &fake{info: core.EmbedderInfo{Name: "fake", Model: "m", Dim: 2}, vecs: ramp(2)}
	t.Run("refused without Configure", func(t *testing.T) {
		c := connect(t, embedder.ServeConfig{Factory: embedder.Static(f)})
		err := c.Configure(ctx, map[string]string{"x": "1"})
		if !errors.Is(err, embedder.ErrUnsupported) {
			t.Fatalf("Configure = %v, want ErrUnsupported", err)
		}
		// The embedder still works.
		if _, err := c.Embed(ctx, []string{"a"}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("none without Configure", func(t *testing.T) {
		c := connect(t, embedder.ServeConfig{Factory: embedder.Static(f)})
		if err := c.Configure(ctx, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("rejected", func(t *testing.T) {
		c := connect(t, embedder.ServeConfig{Factory: embedder.Static(configurable{f})})
		err := c.Configure(ctx, map[string]string{"fail": "yes"})
		if err == nil || err.Error() != "bad option fail" {
			t.Fatalf("Configure = %v, want the plugin's own message", err)
		}
	})
	t.Run("factory", func(t *testing.T) {
		var got map[string]string
		c := connect(t, embedder.ServeConfig{Version: "v9", Factory: func(_ context.Context, o map[string]string) (embedder.Embedder, error) {
			got = o
			return f, nil
		}})
		if err := c.Configure(ctx, map[string]string{"dim": "2"}); err != nil {
			t.Fatal(err)
		}
		if got["dim"] != "2" {
			t.Errorf("factory got %v", got)
		}
		pi, err := c.PluginInfo(ctx)
		if err != nil || pi.Version != "v9" {
			t.Errorf("PluginInfo = %+v, %v; want version v9", pi, err)
		}
	})
	t.Run("no Configure call", func(t *testing.T) {
		calls := 0
		c := connect(t, embedder.ServeConfig{Factory: func(context.Context, map[string]string) (embedder.Embedder, error) {
			calls++
			return f, nil
		}})
		if _, err := c.Embed(ctx, []string{"a"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Embed(ctx, []string{"b"}); err != nil {
			t.Fatal(err)
		}
		if calls != 1 {
			t.Errorf("factory called %d times, want once", calls)
		}
	})
}

func TestClientChecksVectors(t *testing.T) {
	for _, tc := range []struct {
		name string
		info core.EmbedderInfo
		vecs func([]string) [][]float32
		want string
	}{
		{"too few", core.EmbedderInfo{Name: "f", Model: "m", Dim: 2},
			func([]string) [][]float32 { return [][]float32{{1, 2}} },
			"invalid vector: 1 vectors for 2 texts"},
		{"wrong dimension", core.EmbedderInfo{Name: "f", Model: "m", Dim: 2}, ramp(3),
			"invalid vector: vector 1 of 2 has dimension 3, but the plugin's Info says 2"},
		{"NaN", core.EmbedderInfo{Name: "f", Model: "m", Dim: 2},
			func([]string) [][]float32 { return [][]float32{{1, 2}, {float32(math.NaN()), 0}} },
			"invalid vector: vector 2 of 2 has NaN at index 0"},
		{"infinity", core.EmbedderInfo{Name: "f", Model: "m", Dim: 2},
			func([]string) [][]float32 { return [][]float32{{1, float32(math.Inf(-1))}, {1, 2}} },
			"invalid vector: vector 1 of 2 has -Inf at index 1"},
		{"no dimension", core.EmbedderInfo{Name: "f", Model: "m", Dim: 0}, ramp(2),
			"invalid vector: the plugin reports dimension 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := connect(t, embedder.ServeConfig{Factory: embedder.Static(&fake{info: tc.info, vecs: tc.vecs})})
			_, err := c.Embed(t.Context(), []string{"a", "b"})
			if !errors.Is(err, embedder.ErrInvalidVector) || err.Error() != tc.want {
				t.Errorf("Embed error = %v, want %q wrapping ErrInvalidVector", err, tc.want)
			}
		})
	}
}

func TestPluginError(t *testing.T) {
	f := &fake{info: core.EmbedderInfo{Name: "f", Model: "m", Dim: 2}, err: errors.New("model server said no")}
	c := connect(t, embedder.ServeConfig{Factory: embedder.Static(f)})
	_, err := c.Embed(t.Context(), []string{"a"})
	if err == nil || err.Error() != "model server said no" {
		t.Errorf("Embed error = %v, want the plugin's message as it is", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.Embed(ctx, []string{"a"}); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("Embed with a cancelled context = %v", err)
	}
}
