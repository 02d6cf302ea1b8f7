package chunker

import (
	"context"
	"fmt"
	"sync"

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
	return func(ctx context.Context, options map[string]string) (Chunker, error) {
		if c, ok := impl.(Configurer); ok {
			if err := c.Configure(ctx, options); err != nil {
				return nil, err
			}
			return impl, nil
		}
		if len(options) > 0 {
			return impl, fmt.Errorf("%w: the chunker takes no options", ErrUnsupported)
		}
		return impl, nil
	}
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
	pb.RegisterChunkerServer(s, &server{cfg: p.Config})
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
	cfg  ServeConfig
	mu   sync.Mutex
	impl Chunker
}

func (s *server) chunker(ctx context.Context) (Chunker, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.impl != nil {
		return s.impl, nil
	}
	if s.cfg.Factory == nil {
		return nil, fmt.Errorf("chunker plugin has no factory")
	}
	impl, err := s.cfg.Factory(ctx, nil)
	if err != nil {
		return nil, err
	}
	s.impl = impl
	return impl, nil
}

func (s *server) Configure(ctx context.Context, req *pb.ConfigureRequest) (*pb.ConfigureResponse, error) {
	if s.cfg.Factory == nil {
		return nil, shared.ToStatus(fmt.Errorf("chunker plugin has no factory"))
	}
	impl, err := s.cfg.Factory(ctx, req.GetOptions())
	if impl != nil {
		s.mu.Lock()
		s.impl = impl
		s.mu.Unlock()
	}
	return &pb.ConfigureResponse{}, shared.ToStatus(err)
}

func (s *server) Info(ctx context.Context, _ *pb.InfoRequest) (*pb.PluginInfo, error) {
	impl, err := s.chunker(ctx)
	if err != nil {
		return nil, shared.ToStatus(err)
	}
	name, version := s.cfg.Name, s.cfg.Version
	if name == "" {
		name = shared.ProgramName()
	}
	if v, ok := impl.(Versioner); ok && version == "" {
		version = v.Version()
	}
	if version == "" {
		version = shared.BuildVersion()
	}
	return &pb.PluginInfo{Name: name, Version: version}, nil
}

func (s *server) Chunk(ctx context.Context, req *pb.ChunkRequest) (*pb.ChunkResponse, error) {
	impl, err := s.chunker(ctx)
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
