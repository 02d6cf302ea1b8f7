package embedder

import (
	"errors"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

// Embedder turns a batch of texts into vectors, and reports its model's
// name and dimension. It is core.Embedder.
type Embedder = core.Embedder

// Info describes the model behind an [Embedder]. It is core.EmbedderInfo.
type Info = core.EmbedderInfo

// Configurer is an optional interface of an [Embedder] served with [Serve]:
// it receives the plugin's options from the host's configuration once,
// before any other call. An embedder without it takes no options. Its one
// method is:
//
//	Configure(ctx context.Context, options map[string]string) error
type Configurer = shared.Configurer

// Versioner is an optional interface of an [Embedder] served with [Serve]:
// the version it reports to the host (shown by `huimem plugins`). Its one
// method is:
//
//	Version() string
type Versioner = shared.Versioner

// Factory builds an embedder from the plugin's options. [ServeWith] calls
// it when the host configures the plugin, or with no options at the first
// call if the host never does. It is the function type:
//
//	func(ctx context.Context, options map[string]string) (Embedder, error)
type Factory = shared.Factory[Embedder]

// PluginInfo is what an embedder plugin reports about itself.
type PluginInfo struct {
	// Name, Model and Dim are the embedder's Info.
	Name  string `json:"name"`
	Model string `json:"model"`
	Dim   int    `json:"dim"`
	// Version is the plugin's version, free-form.
	Version string `json:"version"`
}

// Errors that callers branch on.
var (
	// ErrUnsupported means the plugin lacks an optional capability, such as
	// taking options.
	ErrUnsupported = shared.ErrUnsupported
	// ErrInvalidVector means the plugin returned the wrong number of
	// vectors, a vector of the wrong dimension, or NaN or infinity.
	ErrInvalidVector = errors.New("invalid vector")
)
