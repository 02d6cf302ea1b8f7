package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/huimemory/huimemory/plugins/chunker"
	"github.com/huimemory/huimemory/plugins/embedder"
	"github.com/huimemory/huimemory/plugins/extractor"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

// proc is one plugin that runs as a subprocess. It starts the process at
// the first call and again after the process died or was stopped. It is
// safe for concurrent use.
type proc struct {
	kind, name string
	// program names the plugin in errors: its path, or "built-in".
	program string
	path    string
	args    []string
	options map[string]string
	sum     []byte // the configured sha256, or nil
	timeout time.Duration
	stderr  io.Writer

	mu     sync.Mutex
	cur    *conn
	closed bool
}

// conn is one running plugin process.
type conn struct {
	client *plugin.Client
	cmd    *exec.Cmd
	// rpc is the kind's client: *embedder.Client, *chunker.Client or
	// *extractor.Client.
	rpc  any
	info Info
	tail *tail
}

// Info is what a running plugin reported about itself.
type Info struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Model and Dim are set for embedders.
	Model string `json:"model,omitempty"`
	Dim   int    `json:"dim,omitempty"`
}

func (p *proc) errorf(err error) error {
	return &Error{Kind: p.kind, Name: p.name, Program: p.program, Err: err}
}

// get returns the running process, starting one if there is none or the
// last one has exited.
func (p *proc) get(ctx context.Context) (*conn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, p.errorf(ErrClosed)
	}
	if p.cur != nil {
		if !p.cur.client.Exited() {
			return p.cur, nil
		}
		p.cur.client.Kill()
		p.cur = nil
	}
	c, err := p.start(ctx)
	if err != nil {
		return nil, err
	}
	p.cur = c
	return c, nil
}

// call runs fn on the running process within the plugin timeout. A
// process that dies during the call, or does not answer in time, is
// stopped, and the next call starts a new one.
func (p *proc) call(ctx context.Context, fn func(context.Context, *conn) error) error {
	c, err := p.get(ctx)
	if err != nil {
		return err
	}
	cctx, cancel := p.withTimeout(ctx)
	defer cancel()
	err = fn(cctx, c)
	if err == nil {
		return nil
	}
	return p.failed(ctx, cctx, c, err)
}

func (p *proc) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if p.timeout > 0 {
		return context.WithTimeout(ctx, p.timeout)
	}
	return context.WithCancel(ctx)
}

// failed classifies a call's error: the caller gave up, the plugin timed
// out, the plugin died, or the plugin returned an error.
func (p *proc) failed(ctx, cctx context.Context, c *conn, err error) error {
	switch {
	case ctx.Err() != nil:
		return p.errorf(fmt.Errorf("call abandoned: %w", ctx.Err()))
	case errors.Is(cctx.Err(), context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded:
		// The plugin's gRPC server may end the call at the deadline a
		// moment before the host's own timer fires.
		p.stop(c)
		return p.errorf(fmt.Errorf("%w: no answer within %s (plugins.timeout); the plugin was stopped and starts again at the next call", ErrTimeout, p.timeout))
	case transportFailure(err) || c.client.Exited():
		p.stop(c)
		return p.errorf(fmt.Errorf("%w: %s; it starts again at the next call", ErrCrashed, exited(c.tail)))
	}
	return p.errorf(err)
}

// exited says that the plugin process exited, with the crash or last line
// of its stderr. Call it after the process has been killed, so that all of
// its stderr has been read.
func exited(t *tail) string {
	msg := "the plugin process exited"
	if s := t.summary(); s != "" {
		msg += fmt.Sprintf(" (stderr: %q)", s)
	}
	return msg
}

// transportFailure reports whether err means the connection to the plugin
// broke, rather than the plugin answering with an error.
func transportFailure(err error) bool {
	st, ok := status.FromError(err)
	return ok && (st.Code() == codes.Unavailable || st.Code() == codes.Canceled)
}

// stop kills c's process at once, whether or not it is still the current
// one.
func (p *proc) stop(c *conn) {
	p.mu.Lock()
	if p.cur == c {
		p.cur = nil
	}
	p.mu.Unlock()
	c.kill()
}

// kill ends the process without waiting for it to shut down, and waits
// until go-plugin has read all its output.
func (c *conn) kill() {
	if c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
	}
	c.client.Kill()
}

// close ends the running process, if any, letting it shut down cleanly.
func (p *proc) close() {
	p.mu.Lock()
	c := p.cur
	p.cur, p.closed = nil, true
	p.mu.Unlock()
	if c != nil {
		c.client.Kill()
	}
}

// start starts the process, configures it and asks for its Info.
func (p *proc) start(ctx context.Context) (*conn, error) {
	cmd := exec.Command(p.path, p.args...)
	orphanProof(cmd)
	t := &tail{}
	var stderr io.Writer = t
	if p.stderr != nil {
		stderr = io.MultiWriter(t, p.stderr)
	}
	var secure *plugin.SecureConfig
	if p.sum != nil {
		secure = &plugin.SecureConfig{Checksum: p.sum, Hash: sha256.New()}
	}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  shared.Handshake,
		VersionedPlugins: shared.PluginSets(p.kind, glue(p.kind)),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Managed:          true,
		SecureConfig:     secure,
		StartTimeout:     p.timeout,
		Logger:           hclog.NewNullLogger(),
		Stderr:           stderr,
		GRPCDialOptions:  shared.DialOptions(),
	})
	c := &conn{client: client, cmd: cmd, tail: t}
	rpc, err := client.Client()
	if err != nil {
		c.kill()
		return nil, p.errorf(p.startError(cmd, err, t))
	}
	c.rpc, err = rpc.Dispense(p.kind)
	if err != nil {
		c.kill()
		return nil, p.errorf(fmt.Errorf("%w: %s", ErrStart, oneLine(err.Error())))
	}
	cctx, cancel := p.withTimeout(ctx)
	defer cancel()
	c.info, err = p.setup(cctx, c)
	if err != nil {
		timedOut := ctx.Err() == nil && (errors.Is(cctx.Err(), context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded)
		crashed := !timedOut && (transportFailure(err) || client.Exited())
		c.kill()
		switch {
		case timedOut:
			err = fmt.Errorf("%w: %w: no answer to Configure or Info within %s (plugins.timeout)", ErrStart, ErrTimeout, p.timeout)
		case crashed:
			err = fmt.Errorf("%w: %s", ErrStart, exited(t))
		default:
			err = fmt.Errorf("%w: %w", ErrStart, err)
		}
		return nil, p.errorf(err)
	}
	return c, nil
}

// setup sends the options and asks for the plugin's Info. A plugin that
// takes no options may say so when it is given none.
func (p *proc) setup(ctx context.Context, c *conn) (Info, error) {
	configured := func(err error) error {
		if err != nil && errors.Is(err, shared.ErrUnsupported) {
			if len(p.options) == 0 {
				return nil
			}
			return fmt.Errorf("options were given, but the plugin takes none: %w", err)
		}
		if err != nil {
			return fmt.Errorf("configure: %w", err)
		}
		return nil
	}
	rpc, ok := c.rpc.(interface {
		Configure(ctx context.Context, options map[string]string) error
	})
	if !ok {
		return Info{}, fmt.Errorf("plugin gave a %T for %s", c.rpc, p.kind)
	}
	if err := configured(rpc.Configure(ctx, p.options)); err != nil {
		return Info{}, err
	}
	var info Info
	var err error
	switch rpc := c.rpc.(type) {
	case *embedder.Client:
		var pi embedder.PluginInfo
		pi, err = rpc.PluginInfo(ctx)
		info = Info{Name: pi.Name, Version: pi.Version, Model: pi.Model, Dim: pi.Dim}
	case interface {
		PluginInfo(ctx context.Context) (shared.PluginInfo, error)
	}: // chunkers and extractors
		var pi shared.PluginInfo
		pi, err = rpc.PluginInfo(ctx)
		info = Info{Name: pi.Name, Version: pi.Version}
	}
	if err != nil {
		return Info{}, fmt.Errorf("info: %w", err)
	}
	return info, nil
}

// startError explains why go-plugin could not start the program.
func (p *proc) startError(cmd *exec.Cmd, err error, t *tail) error {
	if errors.Is(err, plugin.ErrChecksumsDoNotMatch) {
		got := "unreadable"
		if data, rerr := os.ReadFile(cmd.Path); rerr == nil {
			sum := sha256.Sum256(data)
			got = hex.EncodeToString(sum[:])
		}
		return fmt.Errorf("%w: %s has sha256 %s, but the configuration wants %s; refusing to run it",
			ErrChecksum, cmd.Path, got, hex.EncodeToString(p.sum))
	}
	var pathErr *fs.PathError
	var execErr *exec.Error
	if errors.As(err, &pathErr) || errors.As(err, &execErr) || cmd.Err != nil {
		return fmt.Errorf("%w: %s", ErrStart, oneLine(err.Error()))
	}
	return fmt.Errorf("%w: not a HuiMemory plugin, or the go-plugin handshake failed: %s", ErrStart, handshakeFailure(err, t))
}

// handshakeFailure says in one line why go-plugin got no handshake.
func handshakeFailure(err error, t *tail) string {
	first, _, _ := strings.Cut(err.Error(), "\n")
	const unrecognized = "Unrecognized remote plugin message:"
	var msg string
	switch {
	case first == "plugin exited before we could connect" || strings.TrimSpace(first) == unrecognized:
		msg = "the program exited without printing the handshake line"
	case strings.HasPrefix(first, unrecognized):
		msg = fmt.Sprintf("the program printed %q instead of the handshake line", strings.TrimSpace(strings.TrimPrefix(first, unrecognized)))
	default:
		msg = strings.TrimSpace(first)
	}
	if s := t.summary(); s != "" {
		msg += fmt.Sprintf(" (stderr: %q)", s)
	}
	return msg
}

// glue returns the go-plugin glue for a kind, host side.
func glue(kind string) plugin.Plugin {
	switch kind {
	case shared.KindEmbedder:
		return &embedder.Plugin{}
	case shared.KindChunker:
		return &chunker.Plugin{}
	}
	return &extractor.Plugin{}
}

// oneLine folds a multi-line message onto one line.
func oneLine(s string) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "; ")
}
