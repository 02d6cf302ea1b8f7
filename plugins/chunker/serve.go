package chunker

import (
	"context"

	"google.golang.org/grpc"

	"github.com/huimemory/huimemory/plugins/internal/pb"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

// ServeConfig says what [ServeWith] serves: the Factory that builds the
// chunker from the plugin's options (required), the Name reported to the
// host (empty means the program's file name) and the Version (empty means
// the chunker's Version method when it has one, [Versioner], else the main
// module's version from the program's Go build info). It is the struct:
//
//	struct{ Factory Factory; Name, Version string }
type ServeConfig = shared.ServeConfig[Chunker]

// Serve serves impl as a chunker plugin: it is a plugin program's whole
// main. It returns when the host ends the plugin; run by hand, not by a
// HuiMemory host, it prints a note and exits with status 1. If impl is a
// [Configurer] it receives the plugin's options; otherwise a host that
// sends options gets [ErrUnsupported].
func Serve(impl Chunker) {
	ServeWith(ServeConfig{Factory: Static(impl)})
}

// ServeWith serves the chunker that cfg.Factory builds, like [Serve].
func ServeWith(cfg ServeConfig) { (&Plugin{Config: cfg}).Serve() }

// Static returns a [Factory] that always gives impl, passing the options
// to impl's Configure method if it has one. With options and no Configure
// method it still gives impl, together with [ErrUnsupported].
func Static(impl Chunker) Factory {
	return shared.Static(shared.KindChunker, impl)
}

// Plugin is the go-plugin glue for chunkers (a plugin.GRPCPlugin): its
// GRPCServer serves Config, its GRPCClient gives a [*Client]. A host uses
// it with a zero Config; [ServeWith] fills Config in.
type Plugin = shared.Plugin[Chunker, *Client, kind]

// kind tells the go-plugin glue about chunkers.
type kind struct{}

func (kind) Name() string { return shared.KindChunker }

func (kind) Register(s *grpc.Server, impl *shared.Impl[Chunker]) {
	pb.RegisterChunkerServer(s, &server{Service: shared.Service[Chunker]{Impl: impl}})
}

func (kind) NewClient(cc *grpc.ClientConn) *Client { return NewClient(cc) }

// server is the plugin side: it adapts the Chunker to the generated
// service, with Configure and Info from [shared.Service].
type server struct {
	shared.Service[Chunker]
	unimplemented
}

// unimplemented puts the generated server one level below shared.Service.
type unimplemented struct{ pb.UnimplementedChunkerServer }

func (s *server) Chunk(ctx context.Context, req *pb.ChunkRequest) (*pb.ChunkResponse, error) {
	return shared.Call(ctx, s.Impl, Chunker.Chunk, req, chunkRequestFromPB, chunkResponseToPB)
}
