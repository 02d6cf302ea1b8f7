package chunker

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/huimemory/huimemory/plugins/internal/pb"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

// ServeConfig says what [ServeWith] serves.
type ServeConfig struct {
	// Factory builds the chunker from the plugin's options. Required.
	Factory Factory
	// Name is reported to the host; empty means the program's file name.
	Name string
	// Version is reported to the host. Empty means the chunker's Version
	// method when it has one ([Versioner]), else the main module's version
	// from the program's Go build info.
	Version string
}

// Serve serves impl as a chunker plugin: it is a plugin program's whole
// main. It returns when the host ends the plugin; run by hand, not by a
// HuiMemory host, it prints a note and exits with status 1. If impl is a
// [Configurer] it receives the plugin's options; otherwise a host that
// sends options gets [ErrUnsupported].
func Serve(impl Chunker) {
	ServeWith(ServeConfig{Factory: Static(impl)})
}

// ServeWith serves the chunker that cfg.Factory builds, like [Serve].
func ServeWith(cfg ServeConfig) {
	shared.Serve(shared.KindChunker, &Plugin{Config: cfg})
}

// Static returns a [Factory] that always gives impl, passing the options
// to impl's Configure method if it has one. With options and no Configure
// method it still gives impl, together with [ErrUnsupported].
func Static(impl Chunker) Factory {
	return shared.Static(shared.KindChunker, impl)
}

// Plugin is the go-plugin glue for chunkers (a plugin.GRPCPlugin). A host
// uses it with a zero Config; [ServeWith] fills Config in.
type Plugin struct {
	plugin.NetRPCUnsupportedPlugin
	// Config is the server side's chunker; unused on the host side.
	Config ServeConfig
}

var _ plugin.GRPCPlugin = (*Plugin)(nil)

// GRPCServer registers the chunker service on s.
func (p *Plugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterChunkerServer(s, &server{impl: shared.Impl[Chunker]{
		Kind: shared.KindChunker, Factory: p.Config.Factory, Name: p.Config.Name, Version: p.Config.Version,
	}})
	return nil
}

// GRPCClient returns a [*Client] on cc.
func (p *Plugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, cc *grpc.ClientConn) (any, error) {
	return NewClient(cc), nil
}

// server is the plugin side: it adapts the Chunker to the generated
// service.
type server struct {
	pb.UnimplementedChunkerServer
	impl shared.Impl[Chunker]
}

func (s *server) Configure(ctx context.Context, req *pb.ConfigureRequest) (*pb.ConfigureResponse, error) {
	return &pb.ConfigureResponse{}, shared.ToStatus(s.impl.Configure(ctx, req.GetOptions()))
}

func (s *server) Info(ctx context.Context, _ *pb.InfoRequest) (*pb.PluginInfo, error) {
	info, err := s.impl.Info(ctx)
	return info, shared.ToStatus(err)
}

func (s *server) Chunk(ctx context.Context, req *pb.ChunkRequest) (*pb.ChunkResponse, error) {
	impl, err := s.impl.Get(ctx)
	if err != nil {
		return nil, shared.ToStatus(err)
	}
	msgs, err := messagesFromPB(req.GetMessages())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	spans, err := impl.Chunk(ctx, msgs)
	if err != nil {
		return nil, shared.ToStatus(err)
	}
	return &pb.ChunkResponse{Spans: spansToPB(spans)}, nil
}
