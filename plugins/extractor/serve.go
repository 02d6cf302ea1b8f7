package extractor

import (
	"context"

	"google.golang.org/grpc"

	"github.com/huimemory/huimemory/plugins/internal/pb"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

// ServeConfig says what [ServeWith] serves: the Factory that builds the
// extractor from the plugin's options (required), the Name reported to
// the host (empty means the program's file name) and the Version (empty
// means the extractor's Version method when it has one, [Versioner], else
// the main module's version from the program's Go build info). It is the
// struct:
//
//	struct{ Factory Factory; Name, Version string }
type ServeConfig = shared.ServeConfig[Extractor]

// Serve serves impl as an extractor plugin: it is a plugin program's whole
// main. It returns when the host ends the plugin; run by hand, not by a
// HuiMemory host, it prints a note and exits with status 1. If impl is a
// [Configurer] it receives the plugin's options; otherwise a host that
// sends options gets [ErrUnsupported].
func Serve(impl Extractor) {
	ServeWith(ServeConfig{Factory: Static(impl)})
}

// ServeWith serves the extractor that cfg.Factory builds, like [Serve].
func ServeWith(cfg ServeConfig) { (&Plugin{Config: cfg}).Serve() }

// Static returns a [Factory] that always gives impl, passing the options
// to impl's Configure method if it has one. With options and no Configure
// method it still gives impl, together with [ErrUnsupported].
func Static(impl Extractor) Factory {
	return shared.Static(shared.KindExtractor, impl)
}

// Plugin is the go-plugin glue for extractors (a plugin.GRPCPlugin): its
// GRPCServer serves Config, its GRPCClient gives a [*Client]. A host uses
// it with a zero Config; [ServeWith] fills Config in.
type Plugin = shared.Plugin[Extractor, *Client, kind]

// kind tells the go-plugin glue about extractors.
type kind struct{}

func (kind) Name() string { return shared.KindExtractor }

func (kind) Register(s *grpc.Server, impl *shared.Impl[Extractor]) {
	pb.RegisterExtractorServer(s, &server{Service: shared.Service[Extractor]{Impl: impl}})
}

func (kind) NewClient(cc *grpc.ClientConn) *Client { return NewClient(cc) }

// server is the plugin side: it adapts the Extractor to the generated
// service, with Configure and Info from [shared.Service].
type server struct {
	shared.Service[Extractor]
	unimplemented
}

// unimplemented puts the generated server one level below shared.Service.
type unimplemented struct {
	pb.UnimplementedExtractorServer
}

func (s *server) Extract(ctx context.Context, req *pb.ExtractRequest) (*pb.ExtractResponse, error) {
	return shared.Call(ctx, s.Impl, Extractor.Extract, req, extractRequestFromPB, extractResponseToPB)
}
