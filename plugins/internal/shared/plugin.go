package shared

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/huimemory/huimemory/plugins/internal/pb"
)

// ServeConfig says what a plugin of kind T (an interface type, such as
// core.Chunker) serves. Each kind re-exports its instance as its own
// ServeConfig.
type ServeConfig[T any] struct {
	// Factory builds the implementation from the plugin's options.
	// Required.
	Factory Factory[T]
	// Name is reported to the host; empty means the program's file name.
	// An embedder reports the name its own Info gives instead.
	Name string
	// Version is reported to the host. Empty means the implementation's
	// Version method when it has one ([Versioner]), else the main module's
	// version from the program's Go build info.
	Version string
}

// Kind is what the go-plugin glue needs to know of one plugin kind: its Go
// interface T, its host-side client C, and the two functions that differ
// from kind to kind. Each kind implements it with an empty struct type;
// the glue calls its methods on the zero value.
type Kind[T, C any] interface {
	// Name is the kind's name, such as [KindChunker]: what its plugins are
	// dispensed under.
	Name() string
	// Register registers the kind's gRPC service on s, serving impl.
	Register(s *grpc.Server, impl *Impl[T])
	// NewClient returns the kind's host-side client on cc.
	NewClient(cc *grpc.ClientConn) C
}

// Plugin is the go-plugin glue (a plugin.GRPCPlugin) of kind K, whose Go
// interface is T and whose host-side client is C. A host uses it with a
// zero Config; [Plugin.Serve] serves Config. Each kind re-exports its
// instance as its own Plugin.
type Plugin[T, C any, K Kind[T, C]] struct {
	plugin.NetRPCUnsupportedPlugin
	// Config is the server side's implementation; unused on the host side.
	Config ServeConfig[T]
}

// GRPCServer registers the kind's service on s, serving the implementation
// that Config builds: lazily, as [Impl] does.
func (p *Plugin[T, C, K]) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	var k K
	k.Register(s, &Impl[T]{Kind: k.Name(), Factory: p.Config.Factory, Name: p.Config.Name, Version: p.Config.Version})
	return nil
}

// GRPCClient returns the kind's client on cc.
func (p *Plugin[T, C, K]) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, cc *grpc.ClientConn) (any, error) {
	var k K
	return k.NewClient(cc), nil
}

// Serve serves p as a plugin of its kind with [Serve]: it is a plugin
// program's whole main.
func (p *Plugin[T, C, K]) Serve() {
	var k K
	Serve(k.Name(), p)
}

// Service is the part of a kind's gRPC server that every kind has: the
// Configure and Info calls over the lazily built implementation. A kind's
// server embeds it together with its own calls, and puts the generated
// Unimplemented server one level further down, so that the generated
// Configure and Info do not make these ambiguous:
//
//	type server struct {
//		shared.Service[Chunker]
//		unimplemented // struct{ pb.UnimplementedChunkerServer }
//	}
type Service[T any] struct {
	Impl *Impl[T]
}

// Configure builds the implementation from the host's options.
func (s Service[T]) Configure(ctx context.Context, req *pb.ConfigureRequest) (*pb.ConfigureResponse, error) {
	return &pb.ConfigureResponse{}, ToStatus(s.Impl.Configure(ctx, req.GetOptions()))
}

// Info reports the plugin's name and version, as [Impl.Info] finds them.
func (s Service[T]) Info(ctx context.Context, _ *pb.InfoRequest) (*pb.PluginInfo, error) {
	info, err := s.Impl.Info(ctx)
	return info, ToStatus(err)
}

// Call serves one call of a kind's own service on the plugin side: it
// gets the implementation, converts the request with in, calls fn, and
// converts its answer with out. A request that in cannot convert is
// InvalidArgument; the other errors are mapped with [ToStatus].
func Call[T, Req, In, Out, Resp any](ctx context.Context, impl *Impl[T], fn func(T, context.Context, In) (Out, error),
	req Req, in func(Req) (In, error), out func(Out) Resp) (Resp, error) {
	var zero Resp
	t, err := impl.Get(ctx)
	if err != nil {
		return zero, ToStatus(err)
	}
	arg, err := in(req)
	if err != nil {
		return zero, status.Error(codes.InvalidArgument, err.Error())
	}
	res, err := fn(t, ctx, arg)
	if err != nil {
		return zero, ToStatus(err)
	}
	return out(res), nil
}
