package embedder

import (
	"context"

	"google.golang.org/grpc"

	"github.com/huimemory/huimemory/plugins/internal/pb"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

// ServeConfig says what [ServeWith] serves: the Factory that builds the
// embedder from the plugin's options (required) and the Version reported
// to the host (empty means the embedder's Version method when it has one,
// [Versioner], else the main module's version from the program's Go build
// info). An embedder reports the name its Info gives, so Name goes unused.
// It is the struct:
//
//	struct{ Factory Factory; Name, Version string }
type ServeConfig = shared.ServeConfig[Embedder]

// Serve serves impl as an embedder plugin: it is a plugin program's whole
// main. It returns when the host ends the plugin; run by hand, not by a
// HuiMemory host, it prints a note and exits with status 1. If impl is a
// [Configurer] it receives the plugin's options; otherwise a host that
// sends options gets [ErrUnsupported].
func Serve(impl Embedder) {
	ServeWith(ServeConfig{Factory: Static(impl)})
}

// ServeWith serves the embedder that cfg.Factory builds, like [Serve].
func ServeWith(cfg ServeConfig) { (&Plugin{Config: cfg}).Serve() }

// Static returns a [Factory] that always gives impl, passing the options
// to impl's Configure method if it has one. With options and no Configure
// method it still gives impl, together with [ErrUnsupported].
func Static(impl Embedder) Factory {
	return shared.Static(shared.KindEmbedder, impl)
}

// Plugin is the go-plugin glue for embedders (a plugin.GRPCPlugin): its
// GRPCServer serves Config, its GRPCClient gives a [*Client]. A host uses
// it with a zero Config; [ServeWith] fills Config in.
type Plugin = shared.Plugin[Embedder, *Client, kind]

// kind tells the go-plugin glue about embedders.
type kind struct{}

func (kind) Name() string { return shared.KindEmbedder }

func (kind) Register(s *grpc.Server, impl *shared.Impl[Embedder]) {
	pb.RegisterEmbedderServer(s, &server{Service: shared.Service[Embedder]{Impl: impl}})
}

func (kind) NewClient(cc *grpc.ClientConn) *Client { return NewClient(cc) }

// server is the plugin side: it adapts the Embedder to the generated
// service, with Configure from [shared.Service].
type server struct {
	shared.Service[Embedder]
	unimplemented
}

// unimplemented puts the generated server one level below shared.Service.
type unimplemented struct{ pb.UnimplementedEmbedderServer }

// Info reports the embedder's own name, model and dimension (an embedder
// plugin has no configured name), with the version [shared.Impl.VersionOf]
// picks.
func (s *server) Info(ctx context.Context, _ *pb.InfoRequest) (*pb.PluginInfo, error) {
	impl, err := s.Impl.Get(ctx)
	if err != nil {
		return nil, shared.ToStatus(err)
	}
	info, err := impl.Info(ctx)
	if err != nil {
		return nil, shared.ToStatus(err)
	}
	return &pb.PluginInfo{Name: info.Name, Version: s.Impl.VersionOf(impl), Model: info.Model, Dim: int32(info.Dim)}, nil
}

func (s *server) Embed(ctx context.Context, req *pb.EmbedRequest) (*pb.EmbedResponse, error) {
	return shared.Call(ctx, s.Impl, Embedder.Embed, req, embedRequestFromPB, embedResponseToPB)
}

func embedRequestFromPB(req *pb.EmbedRequest) ([]string, error) { return req.GetTexts(), nil }

func embedResponseToPB(vecs [][]float32) *pb.EmbedResponse {
	resp := &pb.EmbedResponse{Vectors: make([]*pb.Vector, len(vecs))}
	for i, v := range vecs {
		resp.Vectors[i] = &pb.Vector{Values: v}
	}
	return resp
}
