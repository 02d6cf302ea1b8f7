package chunker

import (
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

// Chunker cuts one session's messages into spans. It is core.Chunker.
type Chunker = core.Chunker

// Configurer is an optional interface of a [Chunker] served with [Serve]:
// it receives the plugin's options from the host's configuration once,
// before any other call. A chunker without it takes no options. Its one
// method is:
//
//	Configure(ctx context.Context, options map[string]string) error
type Configurer = shared.Configurer

// Versioner is an optional interface of a [Chunker] served with [Serve]:
// the version it reports to the host (shown by `huimem plugins`). Its one
// method is:
//
//	Version() string
type Versioner = shared.Versioner

// Factory builds a chunker from the plugin's options. [ServeWith] calls it
// when the host configures the plugin, or with no options at the first call
// if the host never does. It is the function type:
//
//	func(ctx context.Context, options map[string]string) (Chunker, error)
type Factory = shared.Factory[Chunker]

// PluginInfo is what a chunker plugin reports about itself: its Name and
// Version.
type PluginInfo = shared.PluginInfo

// ErrUnsupported means the plugin lacks an optional capability, such as
// taking options.
var ErrUnsupported = shared.ErrUnsupported
