package extractor

import (
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

// Extractor reads a chunk and returns its memories. It is core.Extractor.
type Extractor = core.Extractor

// Memory is one typed piece of long-term memory. It is core.Memory.
type Memory = core.Memory

// Configurer is an optional interface of an [Extractor] served with
// [Serve]: it receives the plugin's options from the host's configuration
// once, before any other call. An extractor without it takes no options.
// Its one method is:
//
//	Configure(ctx context.Context, options map[string]string) error
type Configurer = shared.Configurer

// Versioner is an optional interface of an [Extractor] served with [Serve]:
// the version it reports to the host (shown by `huimem plugins`). Its one
// method is:
//
//	Version() string
type Versioner = shared.Versioner

// Factory builds an extractor from the plugin's options. [ServeWith] calls
// it when the host configures the plugin, or with no options at the first
// call if the host never does. It is the function type:
//
//	func(ctx context.Context, options map[string]string) (Extractor, error)
type Factory = shared.Factory[Extractor]

// PluginInfo is what an extractor plugin reports about itself: its Name
// and Version.
type PluginInfo = shared.PluginInfo

// ErrUnsupported means the plugin lacks an optional capability, such as
// taking options.
var ErrUnsupported = shared.ErrUnsupported
