package main

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/chunker"
	"github.com/huimemory/huimemory/plugins/embedder"
	"github.com/huimemory/huimemory/plugins/extractor"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

var (
	kind     = flag.String("kind", "embedder", "embedder, chunker or extractor")
	mode     = flag.String("mode", "ok", "ok, wrongdim or nan")
	dim      = flag.Int("dim", 8, "embedder dimension")
	protocol = flag.Int("protocol", shared.ProtocolVersion, "plugin protocol version to speak")
	noConfig = flag.Bool("noconfig", false, "take no options")
)

func main() {
	flag.Parse()
	var p plugin.Plugin
	switch *kind {
	case "embedder":
		e := &faultyEmbedder{}
		p = &embedder.Plugin{Config: embedder.ServeConfig{Factory: factory[embedder.Embedder](e)}}
	case "chunker":
		c := &faultyChunker{}
		p = &chunker.Plugin{Config: chunker.ServeConfig{Name: "faulty", Factory: factory[chunker.Chunker](c)}}
	case "extractor":
		x := &faultyExtractor{}
		p = &extractor.Plugin{Config: extractor.ServeConfig{Name: "faulty", Factory: factory[extractor.Extractor](x)}}
	default:
		fmt.Fprintf(os.Stderr, "faulty: unknown kind %q\n", *kind)
		os.Exit(2)
	}
	handshake := shared.Handshake
	handshake.ProtocolVersion = uint(*protocol)
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  handshake,
		VersionedPlugins: map[int]plugin.PluginSet{*protocol: {*kind: p}},
		GRPCServer:       shared.NewGRPCServer,
	})
}

// configurable is what each faulty implementation has besides its kind's
// method.
type configurable interface {
	configure(options map[string]string) error
}

// factory configures impl, or refuses options with -noconfig.
func factory[T any](impl configurable) func(context.Context, map[string]string) (T, error) {
	return func(_ context.Context, options map[string]string) (T, error) {
		t := impl.(T)
		if *noConfig {
			if len(options) > 0 {
				return t, fmt.Errorf("%w: faulty -noconfig", shared.ErrUnsupported)
			}
			return t, nil
		}
		return t, impl.configure(options)
	}
}

// misbehave acts on the magic words in text.
func misbehave(text string) {
	switch {
	case strings.Contains(text, "CRASH"):
		self, _ := os.FindProcess(os.Getpid())
		self.Kill()
		time.Sleep(time.Minute)
	case strings.Contains(text, "PANIC"):
		panic("faulty: PANIC in input")
	case strings.Contains(text, "HANG"):
		select {}
	}
	if i := strings.Index(text, "SLEEP:"); i >= 0 {
		file := strings.Fields(text[i+len("SLEEP:"):])[0]
		os.WriteFile(file+".tmp", fmt.Appendf(nil, "%d", os.Getpid()), 0o600)
		os.Rename(file+".tmp", file)
		time.Sleep(time.Minute)
	}
}

func version() string { return fmt.Sprintf("pid=%d", os.Getpid()) }

type faultyEmbedder struct{ dim int }

func (e *faultyEmbedder) configure(options map[string]string) error {
	e.dim = *dim
	if v, ok := options["dim"]; ok {
		if _, err := fmt.Sscan(v, &e.dim); err != nil {
			return fmt.Errorf("faulty: option dim: %q is not a number", v)
		}
	}
	return nil
}

func (e *faultyEmbedder) Version() string { return version() }

func (e *faultyEmbedder) Info(context.Context) (core.EmbedderInfo, error) {
	d := e.dim
	if d == 0 {
		d = *dim
	}
	return core.EmbedderInfo{Name: "faulty", Model: "faulty-" + *mode, Dim: d}, nil
}

func (e *faultyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	info, _ := e.Info(ctx)
	n := info.Dim
	if *mode == "wrongdim" {
		n++
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		misbehave(t)
		v := make([]float32, n)
		for j := range v {
			h := fnv.New32a()
			fmt.Fprintf(h, "%d:%s", j, t)
			v[j] = float32(h.Sum32()%1000) / 1000
		}
		if *mode == "nan" {
			v[n-1] = float32(math.NaN())
		}
		out[i] = v
	}
	return out, nil
}

type faultyChunker struct{}

func (c *faultyChunker) configure(map[string]string) error { return nil }

func (c *faultyChunker) Version() string { return version() }

func (c *faultyChunker) Chunk(_ context.Context, msgs []core.SessionMessage) ([]core.Span, error) {
	spans := make([]core.Span, len(msgs))
	for i := range msgs {
		misbehave(msgs[i].Text)
		spans[i] = core.Span{From: i, To: i + 1, LineStart: msgs[i].HeaderLine, LineEnd: msgs[i].TextEnd}
	}
	return spans, nil
}

type faultyExtractor struct{ options map[string]string }

func (x *faultyExtractor) configure(options map[string]string) error {
	x.options = options
	return nil
}

func (x *faultyExtractor) Version() string { return version() }

func (x *faultyExtractor) Extract(_ context.Context, c *core.Chunk) ([]core.Memory, error) {
	misbehave(c.Content())
	facts := []string{}
	for _, k := range slices.Sorted(maps.Keys(x.options)) {
		facts = append(facts, "option "+k+"="+x.options[k])
	}
	return []core.Memory{{Type: "note", Topic: "faulty", Entities: c.Speakers(), Facts: facts}}, nil
}
