package extractor

import (
	"context"

	"google.golang.org/grpc"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/internal/pb"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

// Client is the host side of an extractor plugin: an [Extractor] whose
// calls go to the plugin over gRPC. It is safe for concurrent use.
//
// Errors the plugin returns come back with its message. Transport failures
// (the process died, the call ran out of time) come back as gRPC status
// errors, so that the caller can tell them apart; plugins/host does, and
// restarts the plugin.
type Client struct {
	rpc pb.ExtractorClient
}

var _ Extractor = (*Client)(nil)

// NewClient returns a client for the extractor service on cc.
func NewClient(cc grpc.ClientConnInterface) *Client {
	return &Client{rpc: pb.NewExtractorClient(cc)}
}

// Configure sends the plugin its options. A plugin that takes none answers
// [ErrUnsupported].
func (c *Client) Configure(ctx context.Context, options map[string]string) error {
	return shared.CallConfigure(ctx, c.rpc, options)
}

// PluginInfo asks the plugin for its name and version.
func (c *Client) PluginInfo(ctx context.Context) (PluginInfo, error) {
	resp, err := shared.CallInfo(ctx, c.rpc)
	if err != nil {
		return PluginInfo{}, err
	}
	return PluginInfo{Name: resp.GetName(), Version: resp.GetVersion()}, nil
}

// Extract sends the chunk to the plugin and returns its memories.
func (c *Client) Extract(ctx context.Context, chunk *core.Chunk) ([]core.Memory, error) {
	resp, err := c.rpc.Extract(ctx, &pb.ExtractRequest{Chunk: chunkToPB(chunk)})
	if err != nil {
		return nil, shared.FromStatus(err)
	}
	return memoriesFromPB(resp.GetMemories()), nil
}
