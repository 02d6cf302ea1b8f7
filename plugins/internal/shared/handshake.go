package shared

import (
	"log"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// ProtocolVersion is the plugin protocol's version: the proto package
// huimem.plugin.v1. A change that old plugins or hosts cannot follow gets
// a new version and a new proto package; hosts keep serving the old ones
// through go-plugin's VersionedPlugins.
const ProtocolVersion = 1

// Handshake is the go-plugin handshake every HuiMemory plugin and host
// share. The magic cookie only tells a plugin program that a HuiMemory host
// started it; it is not a security feature.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "HUIMEM_PLUGIN",
	MagicCookieValue: "d3c1f4a2-huimem-plugin",
}

// The names plugins are dispensed under: one kind per plugin process.
const (
	KindEmbedder  = "embedder"
	KindChunker   = "chunker"
	KindExtractor = "extractor"
)

// MaxMessageSize bounds one gRPC message each way, on both ends: large
// enough for a batch of 4096 texts or vectors of 4096 dimensions.
const MaxMessageSize = 64 << 20

// windowSize is HTTP/2's flow-control window on both ends. The default
// (64 KiB, grown by estimation) makes a large batch wait for window
// updates; between two processes on one machine there is no network to
// spare, so the window covers a whole message.
const windowSize = MaxMessageSize

// NewGRPCServer makes a plugin's gRPC server with the message limits; it
// is go-plugin's ServeConfig.GRPCServer.
func NewGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts, grpc.MaxRecvMsgSize(MaxMessageSize), grpc.MaxSendMsgSize(MaxMessageSize),
		grpc.InitialWindowSize(windowSize), grpc.InitialConnWindowSize(windowSize))
	return grpc.NewServer(opts...)
}

// DialOptions are the host's gRPC options, for go-plugin's
// ClientConfig.GRPCDialOptions.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(MaxMessageSize),
			grpc.MaxCallSendMsgSize(MaxMessageSize),
		),
		grpc.WithInitialWindowSize(windowSize),
		grpc.WithInitialConnWindowSize(windowSize),
	}
}

// PluginSets returns the versioned plugin sets for one plugin of kind:
// what a host asks for and what a plugin serves.
func PluginSets(kind string, p plugin.Plugin) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{ProtocolVersion: {kind: p}}
}

// Serve serves p, a plugin of kind, over go-plugin's gRPC transport and
// returns when the host ends the plugin. Started by anything but a
// HuiMemory host, it prints a note and exits with status 1.
func Serve(kind string, p plugin.Plugin) {
	// Plugins log to stderr, which the host keeps for its error messages;
	// only warnings and worse are worth the space.
	logger := hclog.New(&hclog.LoggerOptions{
		Name:       kind,
		Level:      hclog.Warn,
		Output:     os.Stderr,
		JSONFormat: true,
	})
	log.SetOutput(os.Stderr)
	go exitWithParent()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: PluginSets(kind, p),
		GRPCServer:       NewGRPCServer,
		Logger:           logger,
	})
}

// exitWithParent ends the plugin when its host has died without ending it
// (the process was re-parented), so that plugins do not pile up.
func exitWithParent() {
	parent := os.Getppid()
	for range time.Tick(time.Second) {
		if os.Getppid() != parent {
			os.Exit(0)
		}
	}
}
