package embedder

import (
	"context"
	"fmt"
	"sync/atomic"

	"google.golang.org/grpc"

	"github.com/huimemory/huimemory/plugins/internal/pb"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

// Client is the host side of an embedder plugin: an [Embedder] whose calls
// go to the plugin over gRPC. It is safe for concurrent use.
//
// Configure sends the plugin its options; a plugin that takes none
// answers [ErrUnsupported]. Errors the plugin returns come back with its
// message. Transport failures (the process died, the call ran out of time)
// come back as gRPC status errors, so that the caller can tell them apart;
// plugins/host does, and restarts the plugin.
type Client struct {
	shared.Conn
	rpc pb.EmbedderClient
	// dim is the dimension from the plugin's last Info; 0 before the
	// first.
	dim atomic.Int64
}

var _ Embedder = (*Client)(nil)

// NewClient returns a client for the embedder service on cc.
func NewClient(cc grpc.ClientConnInterface) *Client {
	rpc := pb.NewEmbedderClient(cc)
	return &Client{Conn: shared.NewConn(rpc), rpc: rpc}
}

// PluginInfo asks the plugin for its name, version, model and dimension.
// A dimension that is not positive is an error.
func (c *Client) PluginInfo(ctx context.Context) (PluginInfo, error) {
	resp, err := shared.CallInfo(ctx, c.rpc)
	if err != nil {
		return PluginInfo{}, err
	}
	pi := PluginInfo{Name: resp.GetName(), Version: resp.GetVersion(), Model: resp.GetModel(), Dim: int(resp.GetDim())}
	if pi.Dim <= 0 {
		return pi, fmt.Errorf("%w: the plugin reports dimension %d", ErrInvalidVector, pi.Dim)
	}
	c.dim.Store(int64(pi.Dim))
	return pi, nil
}

// Info asks the plugin for its name, model and dimension.
func (c *Client) Info(ctx context.Context) (Info, error) {
	pi, err := c.PluginInfo(ctx)
	if err != nil {
		return Info{}, err
	}
	return Info{Name: pi.Name, Model: pi.Model, Dim: pi.Dim}, nil
}

// Embed returns one vector per text. It asks for the plugin's Info first
// if it has not yet, and checks every vector against it: a wrong count, a
// wrong dimension or a NaN or infinity is an [ErrInvalidVector].
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	dim := int(c.dim.Load())
	if dim == 0 {
		pi, err := c.PluginInfo(ctx)
		if err != nil {
			return nil, err
		}
		dim = pi.Dim
	}
	vecs, err := shared.Invoke(ctx, c.rpc.Embed, &pb.EmbedRequest{Texts: texts}, (*pb.EmbedResponse).GetVectors)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("%w: %d vectors for %d texts", ErrInvalidVector, len(vecs), len(texts))
	}
	out := make([][]float32, len(texts))
	for i, v := range vecs {
		vals := v.GetValues()
		if len(vals) != dim {
			return nil, fmt.Errorf("%w: vector %d of %d has dimension %d, but the plugin's Info says %d",
				ErrInvalidVector, i+1, len(texts), len(vals), dim)
		}
		for j, f := range vals {
			// f-f is 0 for every finite f, and NaN for NaN and infinity.
			if f-f != 0 {
				return nil, fmt.Errorf("%w: vector %d of %d has %v at index %d", ErrInvalidVector, i+1, len(texts), f, j)
			}
		}
		out[i] = vals
	}
	return out, nil
}
