package extractor

import (
	"context"

	"google.golang.org/grpc"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/internal/pb"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

// Client is the host side of an extractor plugin: a [Extractor] whose calls go
// to the plugin over gRPC. It is safe for concurrent use.
//
// Configure sends the plugin its options (a plugin that takes none answers
// [ErrUnsupported]) and PluginInfo asks for its name and version. Errors
// the plugin returns come back with its message. Transport failures (the
// process died, the call ran out of time) come back as gRPC status errors,
// so that the caller can tell them apart; plugins/host does, and restarts
// the plugin.
type Client struct {
	shared.Conn
	rpc pb.ExtractorClient
}

var _ Extractor = (*Client)(nil)

// NewClient returns a client for the extractor service on cc.
func NewClient(cc grpc.ClientConnInterface) *Client {
	rpc := pb.NewExtractorClient(cc)
	return &Client{Conn: shared.NewConn(rpc), rpc: rpc}
}

// Extract sends the chunk to the plugin and returns its memories.
func (c *Client) Extract(ctx context.Context, chunk *core.Chunk) ([]core.Memory, error) {
	return shared.Invoke(ctx, c.rpc.Extract, &pb.ExtractRequest{Chunk: chunkToPB(chunk)}, extractResponseFromPB)
}
