package kernel

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/tools"
)

// Memory is what the kernel runs on. [*engine.Engine] implements it.
type Memory interface {
	tools.Memory
	Session(ctx context.Context, ns, session string) (engine.SessionInfo, error)
	CloseSession(ctx context.Context, ns, session string) error
	SessionClosed(ctx context.Context, ns, session string) (bool, error)
}

var _ Memory = (*engine.Engine)(nil)

// ErrSessionClosed means a message was appended to a closed session.
var ErrSessionClosed = errors.New("session is closed")

// Options configure a [Kernel].
type Options struct {
	// Config is the takeover section of the configuration, with defaults.
	Config core.TakeoverConfig
	// Tools are the options of the dispatcher whose schemas the context
	// carries and that runs the model's memory tool calls; Namespace is
	// the namespace the kernel reads and writes.
	Tools tools.Options
	// Tokenizer counts tokens; nil means the configured tiktoken encoding.
	Tokenizer Tokenizer
}

// Kernel is the memory kernel over one namespace of a [Memory].
type Kernel struct {
	mem  Memory
	opts Options
	tok  Tokenizer
	d    *tools.Dispatcher
}

// counted memoises token counts: the rules, the tool schemas and the turns
// of a session are counted again on every request, and counting is most
// of what assembling a context costs. The cache is shared by all kernels
// (their tokenizers are shared too) and bounded.
var counted = struct {
	sync.Mutex
	m map[countKey]int
}{m: map[countKey]int{}}

type countKey struct {
	tok Tokenizer
	s   string
}

// maxCounted bounds the memo; it is emptied when full.
const maxCounted = 1 << 14

// count returns the tokens of s, memoised for strings worth it.
func (k *Kernel) count(s string) int {
	if len(s) < 64 {
		return k.tok.Count(s)
	}
	key := countKey{k.tok, s}
	counted.Lock()
	n, ok := counted.m[key]
	counted.Unlock()
	if ok {
		return n
	}
	n = k.tok.Count(s)
	counted.Lock()
	if len(counted.m) >= maxCounted {
		clear(counted.m)
	}
	counted.m[key] = n
	counted.Unlock()
	return n
}

// New returns a kernel.
func New(mem Memory, opts Options) (*Kernel, error) {
	opts.Config = withDefaults(opts.Config)
	tok := opts.Tokenizer
	if tok == nil {
		var err error
		if tok, err = NewTokenizer(opts.Config.Tokenizer); err != nil {
			return nil, err
		}
	}
	// The kernel stores every message itself: the model needs no remember
	// tool, only the recall tools.
	opts.Tools.Remember = false
	return &Kernel{mem: mem, opts: opts, tok: tok, d: tools.New(mem, opts.Tools)}, nil
}

func withDefaults(c core.TakeoverConfig) core.TakeoverConfig {
	cfg := core.Config{Takeover: c}
	cfg.SetDefaults()
	return cfg.Takeover
}

// Namespace is the namespace the kernel works in.
func (k *Kernel) Namespace() string { return k.opts.Tools.Namespace }

// Dispatcher runs the model's tool calls in the kernel's namespace.
func (k *Kernel) Dispatcher() *tools.Dispatcher { return k.d }

// Tokenizer returns the kernel's tokenizer.
func (k *Kernel) Tokenizer() Tokenizer { return k.tok }

// Message is a message as a host hands it to the kernel.
type Message struct {
	Role    string `json:"role"`
	Text    string `json:"text"`
	Speaker string `json:"speaker,omitempty"`
	// Time defaults to now.
	Time time.Time `json:"time,omitzero"`
	Ref  string    `json:"ref,omitempty"`
}

// Append stores one message of a session durably: when it returns, the
// message survives a crash and the next Context and recall see it.
// Appending to a closed session fails with [ErrSessionClosed].
func (k *Kernel) Append(ctx context.Context, session string, m Message) (core.Message, engine.IngestResult, error) {
	closed, err := k.mem.SessionClosed(ctx, k.Namespace(), session)
	if err != nil {
		return core.Message{}, engine.IngestResult{}, err
	}
	if closed {
		return core.Message{}, engine.IngestResult{}, fmt.Errorf("%w: %q takes no more messages", ErrSessionClosed, session)
	}
	req := tools.RememberRequest{Text: m.Text, Role: m.Role, Speaker: m.Speaker, Session: session, Ref: m.Ref}
	if !m.Time.IsZero() {
		req.Time = m.Time.Format(time.RFC3339Nano)
	}
	msg, err := k.d.Message(req)
	if err != nil {
		return msg, engine.IngestResult{}, err
	}
	res, err := k.mem.Ingest(ctx, []core.Message{msg})
	return msg, res, err
}

// Sessions lists the kernel's sessions, newest first.
func (k *Kernel) Sessions(ctx context.Context) ([]engine.SessionInfo, error) {
	return k.mem.Sessions(ctx, k.Namespace())
}

// Read returns a session's messages in order.
func (k *Kernel) Read(ctx context.Context, session string) ([]core.Message, error) {
	turns, err := k.mem.SessionTurns(ctx, k.Namespace(), session, 0)
	if err != nil {
		return nil, err
	}
	var out []core.Message
	for _, t := range turns {
		out = append(out, t.Messages...)
	}
	return out, nil
}

// Close closes a session: it takes no more messages, and its turns stay
// recallable.
func (k *Kernel) Close(ctx context.Context, session string) error {
	return k.mem.CloseSession(ctx, k.Namespace(), session)
}
