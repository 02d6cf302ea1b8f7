package shared

import (
	"context"
	"fmt"
	"sync"

	"github.com/huimemory/huimemory/plugins/internal/pb"
)

// Configurer is an optional interface of a plugin's implementation: it
// receives the plugin's options from the host's configuration once, before
// any other call. An implementation without it takes no options. Each kind
// re-exports it as its own Configurer.
type Configurer interface {
	Configure(ctx context.Context, options map[string]string) error
}

// Versioner is an optional interface of a plugin's implementation: the
// version it reports to the host (shown by `huimem plugins`). Each kind
// re-exports it as its own Versioner.
type Versioner interface {
	Version() string
}

// Factory builds a plugin's implementation of kind T (an interface type,
// such as core.Chunker) from the plugin's options. Each kind re-exports
// its instance as its own Factory.
type Factory[T any] func(ctx context.Context, options map[string]string) (T, error)

// Static returns a [Factory] that always gives impl, passing the options to
// impl's Configure method if it is a [Configurer]. With options and no
// Configure method it still gives impl, together with an error that wraps
// [ErrUnsupported] and names the kind ("the chunker takes no options").
func Static[T any](kind string, impl T) Factory[T] {
	return func(ctx context.Context, options map[string]string) (T, error) {
		if c, ok := any(impl).(Configurer); ok {
			if err := c.Configure(ctx, options); err != nil {
				var zero T
				return zero, err
			}
			return impl, nil
		}
		if len(options) > 0 {
			return impl, fmt.Errorf("%w: the %s takes no options", ErrUnsupported, kind)
		}
		return impl, nil
	}
}

// Impl is the plugin side's implementation of kind T (an interface type,
// such as core.Chunker), built lazily: by [Impl.Configure] when the host
// configures the plugin, or by [Impl.Get] with no options at the first call
// if the host never does. Each kind's gRPC server holds one and adds its
// own calls. Its methods are safe for concurrent use; an Impl must not be
// copied after first use.
type Impl[T any] struct {
	// Kind is the plugin kind, such as [KindChunker]; it names the kind in
	// errors.
	Kind string
	// Factory builds the implementation from the plugin's options. A nil
	// Factory makes every call fail.
	Factory Factory[T]
	// Name is what [Impl.Info] reports; empty means [ProgramName].
	Name string
	// Version is what [Impl.Info] and [Impl.VersionOf] report; empty means
	// the implementation's Version method when it is a [Versioner], else
	// [BuildVersion].
	Version string

	mu   sync.Mutex
	impl T
}

// Get returns the implementation, building it with no options if the host
// has not configured the plugin. A build that fails is tried again at the
// next call.
func (s *Impl[T]) Get(ctx context.Context) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var zero T
	if any(s.impl) != nil {
		return s.impl, nil
	}
	if s.Factory == nil {
		return zero, s.errNoFactory()
	}
	impl, err := s.Factory(ctx, nil)
	if err != nil {
		return zero, err
	}
	s.impl = impl
	return impl, nil
}

// Configure builds the implementation from the host's options and keeps it
// for the calls that follow. An implementation the factory gives together
// with an error is kept too: that is how [Static] says that options went
// unused ([ErrUnsupported]) while the plugin still works.
func (s *Impl[T]) Configure(ctx context.Context, options map[string]string) error {
	if s.Factory == nil {
		return s.errNoFactory()
	}
	impl, err := s.Factory(ctx, options)
	if any(impl) != nil {
		s.mu.Lock()
		s.impl = impl
		s.mu.Unlock()
	}
	return err
}

// Info returns the plugin's name and version for the host, building the
// implementation first as [Impl.Get] does: the name is s.Name or else
// [ProgramName], the version is [Impl.VersionOf].
func (s *Impl[T]) Info(ctx context.Context) (*pb.PluginInfo, error) {
	impl, err := s.Get(ctx)
	if err != nil {
		return nil, err
	}
	name := s.Name
	if name == "" {
		name = ProgramName()
	}
	return &pb.PluginInfo{Name: name, Version: s.VersionOf(impl)}, nil
}

// VersionOf returns the version the plugin reports with impl: s.Version,
// else impl's Version method when it is a [Versioner] and says one, else
// [BuildVersion].
func (s *Impl[T]) VersionOf(impl T) string {
	version := s.Version
	if v, ok := any(impl).(Versioner); ok && version == "" {
		version = v.Version()
	}
	if version == "" {
		version = BuildVersion()
	}
	return version
}

func (s *Impl[T]) errNoFactory() error {
	return fmt.Errorf("%s plugin has no factory", s.Kind)
}
