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

// CallConfigure sends the plugin behind rpc its options, for a kind's
// Client. A plugin that takes none answers an error that wraps
// [ErrUnsupported]; other errors come back as [FromStatus] maps them.
func CallConfigure(ctx context.Context, rpc PluginClient, options map[string]string) error {
	_, err := rpc.Configure(ctx, &pb.ConfigureRequest{Options: options})
	return FromStatus(err)
}

// CallInfo asks the plugin behind rpc about itself, for a kind's Client.
// Errors come back as [FromStatus] maps them.
func CallInfo(ctx context.Context, rpc PluginClient) (*pb.PluginInfo, error) {
	resp, err := rpc.Info(ctx, &pb.InfoRequest{})
	if err != nil {
		return nil, FromStatus(err)
	}
	return resp, nil
}
