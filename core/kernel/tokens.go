package kernel

import (
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// MessageOverhead is the tokens the chat format adds to each message (the
// role and the separators), as OpenAI documents for its chat models.
const MessageOverhead = 4

// Tokenizer counts tokens.
type Tokenizer interface {
	Count(s string) int
	// Cut returns the longest prefix of s of at most n tokens.
	Cut(s string, n int) string
}

var (
	tkOnce sync.Once
	tkErr  error
	tkMu   sync.Mutex
	tks    = map[string]*tiktoken.Tiktoken{}
)

// NewTokenizer returns a tiktoken tokenizer for an encoding, o200k_base or
// cl100k_base. The encoding's ranks are embedded in the binary and loaded
// on first use (about 100 ms); later calls share them.
func NewTokenizer(encoding string) (Tokenizer, error) {
	tkOnce.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
	tkMu.Lock()
	defer tkMu.Unlock()
	if t, ok := tks[encoding]; ok {
		return tiktoken_{t}, nil
	}
	switch encoding {
	case "o200k_base", "cl100k_base":
	default:
		return nil, fmt.Errorf("kernel: unknown tokenizer %q (o200k_base, cl100k_base)", encoding)
	}
	t, err := tiktoken.GetEncoding(encoding)
	if err != nil {
		return nil, fmt.Errorf("kernel: loading tokenizer %s: %w", encoding, err)
	}
	tks[encoding] = t
	return tiktoken_{t}, nil
}

type tiktoken_ struct{ t *tiktoken.Tiktoken }

func (t tiktoken_) Count(s string) int { return len(t.t.EncodeOrdinary(s)) }

func (t tiktoken_) Cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	toks := t.t.EncodeOrdinary(s)
	if len(toks) <= n {
		return s
	}
	out := t.t.Decode(toks[:n])
	// A cut inside a multi-byte character decodes to U+FFFD; drop it.
	for len(out) > 0 && out[len(out)-1] == 0xbd && len(out) >= 3 && out[len(out)-3:] == "\ufffd" {
		out = out[:len(out)-3]
	}
	return out
}
