package embedder

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/huimemory/huimemory/plugins/internal/pb"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

// ServeConfig says what [ServeWith] serves.
type ServeConfig struct {
	// Factory builds the embedder from the plugin's options. Required.
	Factory Factory
	// Version is reported to the host. Empty means the embedder's Version
	// method when it has one ([Versioner]), else the main module's version
	// from the program's Go build info.
	Version string
}

// Serve serves impl as an embedder plugin: it is a plugin program's whole
// main. It returns when the host ends the plugin; run by hand, not by a
// HuiMemory host, it prints a note and exits with status 1. If impl is a
// [Configurer] it receives the plugin's options; otherwise a host that
// sends options gets [ErrUnsupported].
func Serve(impl Embedder) {
	ServeWith(ServeConfig{Factory: Static(impl)})
}

// ServeWith serves the embedder that cfg.Factory builds, like [Serve].
func ServeWith(cfg ServeConfig) {
	shared.Serve(shared.KindEmbedder, &Plugin{Config: cfg})
}

// Static returns a [Factory] that always gives impl, passing the options
// to impl's Configure method if it has one. With options and no Configure
// method it still gives impl, together with [ErrUnsupported].
func Static(impl Embedder) Factory {
	return shared.Static(shared.KindEmbedder, impl)
}

// Plugin is the go-plugin glue for embedders (a plugin.GRPCPlugin). A host
// uses it with a zero Config; [ServeWith] fills Config in.
type Plugin struct {
	plugin.NetRPCUnsupportedPlugin
	// Config is the server side's embedder; unused on the host side.
	Config ServeConfig
}

var _ plugin.GRPCPlugin = (*Plugin)(nil)

// GRPCServer registers the embedder service on s.
func (p *Plugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterEmbedderServer(s, &server{impl: shared.Impl[Embedder]{
		Kind: shared.KindEmbedder, Factory: p.Config.Factory, Version: p.Config.Version,
	}})
	return nil
}

// GRPCClient returns a [*Client] on cc.
func (p *Plugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, cc *grpc.ClientConn) (any, error) {
	return NewClient(cc), nil
}

// server is the plugin side: it adapts the Embedder to the generated
// service.
type server struct {
	pb.UnimplementedEmbedderServer
	impl shared.Impl[Embedder]
}

func (s *server) Configure(ctx context.Context, req *pb.ConfigureRequest) (*pb.ConfigureResponse, error) {
	return &pb.ConfigureResponse{}, shared.ToStatus(s.impl.Configure(ctx, req.GetOptions()))
}

// Info reports the embedder's own name, model and dimension (an embedder
// plugin has no configured name), with the version [shared.Impl.VersionOf]
// picks.
func (s *server) Info(ctx context.Context, _ *pb.InfoRequest) (*pb.PluginInfo, error) {
	impl, err := s.impl.Get(ctx)
	if err != nil {
		return nil, shared.ToStatus(err)
	}
	info, err := impl.Info(ctx)
	if err != nil {
		return nil, shared.ToStatus(err)
	}
	return &pb.PluginInfo{Name: info.Name, Version: s.impl.VersionOf(impl), Model: info.Model, Dim: int32(info.Dim)}, nil
}

func (s *server) Embed(ctx context.Context, req *pb.EmbedRequest) (*pb.EmbedResponse, error) {
	impl, err := s.impl.Get(ctx)
	if err != nil {
		return nil, shared.ToStatus(err)
	}
	vecs, err := impl.Embed(ctx, req.GetTexts())
	if err != nil {
		return nil, shared.ToStatus(err)
	}
	resp := &pb.EmbedResponse{Vectors: make([]*pb.Vector, len(vecs))}
	for i, v := range vecs {
		resp.Vectors[i] = &pb.Vector{Values: v}
	}
	return resp, nil
}
