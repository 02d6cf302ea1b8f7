package shared

import (
	"context"

	"google.golang.org/grpc"

	"github.com/huimemory/huimemory/plugins/internal/pb"
)

// PluginClient is the part that every kind's generated gRPC client has:
// each kind's service carries its own Configure and Info calls.
type PluginClient interface {
	Configure(ctx context.Context, in *pb.ConfigureRequest, opts ...grpc.CallOption) (*pb.ConfigureResponse, error)
	Info(ctx context.Context, in *pb.InfoRequest, opts ...grpc.CallOption) (*pb.PluginInfo, error)
}

var (
	_ PluginClient = pb.ChunkerClient(nil)
	_ PluginClient = pb.EmbedderClient(nil)
	_ PluginClient = pb.ExtractorClient(nil)
)

// PluginInfo is what a chunker or extractor plugin reports about itself.
// The two kinds re-export it as their own PluginInfo.
type PluginInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Conn is the part of a kind's host-side client that every kind has: the
// Configure and Info calls. A kind's Client embeds it; an embedder's
// Client has a PluginInfo of its own. Its methods are safe for concurrent
// use.
type Conn struct {
	rpc PluginClient
}

// NewConn returns a Conn on a kind's generated client.
func NewConn(rpc PluginClient) Conn { return Conn{rpc: rpc} }

// Configure sends the plugin its options. A plugin that takes none
// answers an error that wraps [ErrUnsupported]; other errors come back as
// [FromStatus] maps them.
func (c Conn) Configure(ctx context.Context, options map[string]string) error {
	_, err := c.rpc.Configure(ctx, &pb.ConfigureRequest{Options: options})
	return FromStatus(err)
}

// PluginInfo asks the plugin for its name and version.
func (c Conn) PluginInfo(ctx context.Context) (PluginInfo, error) {
	resp, err := CallInfo(ctx, c.rpc)
	if err != nil {
		return PluginInfo{}, err
	}
	return PluginInfo{Name: resp.GetName(), Version: resp.GetVersion()}, nil
}

// CallInfo asks the plugin behind rpc about itself, with the fields that
// only some kinds fill in. Errors come back as [FromStatus] maps them.
func CallInfo(ctx context.Context, rpc PluginClient) (*pb.PluginInfo, error) {
	resp, err := rpc.Info(ctx, &pb.InfoRequest{})
	if err != nil {
		return nil, FromStatus(err)
	}
	return resp, nil
}

// Invoke makes one call of a kind's own service on the host side: it
// sends req with call and converts the answer with out. Errors come back
// as [FromStatus] maps them.
func Invoke[Req, Resp, Out any](ctx context.Context, call func(context.Context, Req, ...grpc.CallOption) (Resp, error),
	req Req, out func(Resp) Out) (Out, error) {
	resp, err := call(ctx, req)
	if err != nil {
		var zero Out
		return zero, FromStatus(err)
	}
	return out(resp), nil
}
