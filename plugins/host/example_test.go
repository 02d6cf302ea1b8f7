package host_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/plugins/host"
)

func ExampleNew() {
	var cfg core.Config
	cfg.Chunker = core.PluginSpec{Name: "window", Options: map[string]string{"size": "400"}}
	cfg.Extractors = []core.PluginSpec{{Name: "topic"}}
	cfg.SetDefaults()

	// Without an Executable the built-ins run in this process; huimem
	// passes its own binary, and they run as plugin processes instead.
	ctx := context.Background()
	h, err := host.New(ctx, cfg, host.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close()
	for _, st := range h.Check(ctx) {
		fmt.Println(st.Kind, st.Name, st.Program, st.InProcess, st.Dim, st.Err)
	}
	// The parts go into engine.Options.
	fmt.Println(len(h.Extractors()), h.ExtractorNames())
	// Output:
	// embedder hash built-in true 256 <nil>
	// chunker window built-in true 0 <nil>
	// extractor topic built-in true 0 <nil>
	// 1 [topic]
}

func ExampleOpen() {
	home, err := os.MkdirTemp("", "huimem-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)
	cfg := core.Config{Storage: core.StorageConfig{Home: home}}

	// host.Open builds the parts the configuration names (here the
	// defaults: the hash embedder and the turn chunker, in process) and
	// opens the engine with them; closing the engine ends the plugins.
	ctx := context.Background()
	e, err := host.Open(ctx, cfg, engine.Options{}, host.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	fmt.Println(e.EmbedderInfo().Name, e.EmbedderInfo().Dim)

	// The engine itself builds nothing.
	_, err = engine.Open(ctx, cfg, engine.Options{})
	fmt.Println(errors.Is(err, engine.ErrNoParts))
	// Output:
	// hash 256
	// true
}
