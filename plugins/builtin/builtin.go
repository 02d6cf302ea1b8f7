package builtin

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/huimemory/huimemory/chunkers"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/chunker"
	"github.com/huimemory/huimemory/plugins/embedder"
	"github.com/huimemory/huimemory/plugins/embedder/hash"
	"github.com/huimemory/huimemory/plugins/embedder/openai"
	"github.com/huimemory/huimemory/plugins/embedder/uselite"
	"github.com/huimemory/huimemory/plugins/extractor"
	"github.com/huimemory/huimemory/plugins/extractor/general"
	"github.com/huimemory/huimemory/plugins/extractor/llm"
	"github.com/huimemory/huimemory/plugins/extractor/topic"
)

// The plugin kinds, as `huimem plugin serve KIND NAME` spells them.
const (
	KindEmbedder  = "embedder"
	KindChunker   = "chunker"
	KindExtractor = "extractor"
)

// Kinds lists the plugin kinds.
var Kinds = []string{KindEmbedder, KindChunker, KindExtractor}

var embedders = map[string]embedder.Factory{
	hash.Name: func(_ context.Context, options map[string]string) (embedder.Embedder, error) {
		o := parse(KindEmbedder, hash.Name, options)
		e, err := hash.New(o.int("dim", 0))
		return e, o.err(err)
	},
	uselite.Name: func(_ context.Context, options map[string]string) (embedder.Embedder, error) {
		o := parse(KindEmbedder, uselite.Name, options)
		dir := o.string("model_dir", uselite.DefaultDir())
		if dim := o.int("dim", 0); dim != 0 && dim != uselite.Dim {
			o.fail("dim", "%d: %s has %d dimensions", dim, uselite.Name, uselite.Dim)
		}
		if err := o.err(nil); err != nil {
			return nil, err
		}
		// The weights are read at the first text to embed (uselite.Lazy).
		m, err := uselite.Open(dir)
		return m, o.err(err)
	},
	openai.Name: func(_ context.Context, options map[string]string) (embedder.Embedder, error) {
		o := parse(KindEmbedder, openai.Name, options)
		cfg := openai.Config{
			BaseURL:    o.string("base_url", ""),
			Model:      o.string("model", ""),
			Dim:        o.int("dim", 0),
			BatchSize:  o.int("batch_size", 0),
			MaxRetries: o.int("max_retries", 0),
			Timeout:    o.duration("timeout", 0),
			// "dimensions" in every request, for models that can shorten
			// their vectors.
			SendDimensions: o.bool("send_dimensions"),
		}
		if env := o.string("api_key_env", ""); env != "" {
			cfg.APIKey = os.Getenv(env)
		}
		if err := o.err(nil); err != nil {
			return nil, err
		}
		e, err := openai.New(cfg)
		return e, o.err(err)
	},
}

var chunkerFactories = map[string]chunker.Factory{
	"turn": func(_ context.Context, options map[string]string) (chunker.Chunker, error) {
		o := parse(KindChunker, "turn", options)
		t := chunkers.Turn{MaxChars: o.int("max_chars", 0)}
		o.only("max_chars")
		return t, o.err(nil)
	},
	"message": fixedChunker("message", chunkers.Message{}),
	"window": func(_ context.Context, options map[string]string) (chunker.Chunker, error) {
		o := parse(KindChunker, "window", options)
		w := chunkers.Window{Size: o.int("size", 0), Overlap: o.int("overlap", 0)}
		o.only("size", "overlap")
		return w, o.err(nil)
	},
	"markdown": fixedChunker("markdown", chunkers.Markdown{}),
}

func fixedChunker(name string, c chunker.Chunker) chunker.Factory {
	return func(_ context.Context, options map[string]string) (chunker.Chunker, error) {
		o := parse(KindChunker, name, options)
		o.only()
		return c, o.err(nil)
	}
}

var extractors = map[string]extractor.Factory{
	general.Name: func(_ context.Context, options map[string]string) (extractor.Extractor, error) {
		o := parse(KindExtractor, general.Name, options)
		o.only()
		return general.New(), o.err(nil)
	},
	topic.Name: func(_ context.Context, options map[string]string) (extractor.Extractor, error) {
		o := parse(KindExtractor, topic.Name, options)
		o.only()
		return topic.New(), o.err(nil)
	},
	llm.Name: newLLM,
}

// newLLM builds the llm extractor from its options: base_url, model,
// api_key_env (default OPENAI_API_KEY; the key is read from the
// environment of the process that builds it), timeout, max_retries,
// temperature (default 0; "default" leaves it to the server) and
// response_format (json_schema or json_object).
func newLLM(_ context.Context, options map[string]string) (extractor.Extractor, error) {
	o := parse(KindExtractor, llm.Name, options)
	o.only("base_url", "model", "api_key_env", "timeout", "max_retries", "temperature", "response_format")
	cfg := llm.Config{
		BaseURL:        o.string("base_url", ""),
		Model:          o.string("model", ""),
		Timeout:        o.duration("timeout", 0),
		MaxRetries:     o.int("max_retries", 0),
		ResponseFormat: o.string("response_format", ""),
	}
	switch t := strings.TrimSpace(o.string("temperature", "0")); t {
	case "default":
	default:
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			o.fail("temperature", "%q is not a number or \"default\"", t)
		}
		cfg.Temperature = &f
	}
	env := o.string("api_key_env", llm.DefaultAPIKeyEnv)
	cfg.APIKey = os.Getenv(env)
	if _, set := options["api_key_env"]; set && cfg.APIKey == "" {
		o.fail("api_key_env", "the environment variable %s is empty", env)
	}
	if err := o.err(nil); err != nil {
		return nil, err
	}
	x, err := llm.New(cfg)
	return x, o.err(err)
}

// Embedder returns the constructor of the built-in embedder name. It reads
// the options dim (hash, openai; use-lite checks it is 512), model_dir
// (use-lite), base_url, model, api_key_env (the variable holding the key),
// batch_size, max_retries, timeout and send_dimensions (openai), and
// ignores others, since the host sends every embedding setting to every
// built-in embedder.
func Embedder(name string) (embedder.Factory, bool) {
	f, ok := embedders[name]
	return f, ok
}

// Chunker returns the constructor of the built-in chunker name. Only
// window takes options (size and overlap, in runes); an unknown option is
// an error.
func Chunker(name string) (chunker.Factory, bool) {
	f, ok := chunkerFactories[name]
	return f, ok
}

// Extractor returns the constructor of the built-in extractor name.
// general and topic take no options; llm takes base_url, model,
// api_key_env, timeout, max_retries, temperature and response_format. An
// unknown option is an error.
func Extractor(name string) (extractor.Factory, bool) {
	f, ok := extractors[name]
	return f, ok
}

// Names returns the built-in names of a kind, sorted.
func Names(kind string) []string {
	switch kind {
	case KindEmbedder:
		return slices.Sorted(maps.Keys(embedders))
	case KindChunker:
		return slices.Sorted(maps.Keys(chunkerFactories))
	case KindExtractor:
		return slices.Sorted(maps.Keys(extractors))
	}
	return nil
}

// Known reports whether name is a built-in of kind.
func Known(kind, name string) bool {
	return slices.Contains(Names(kind), name)
}

// EmbedderOptions returns the options a built-in embedder gets from the
// embedding section of the configuration: its options map, with the typed
// fields that are set (dim, model, base_url, api_key_env, batch_size,
// model_dir) written over it as strings.
func EmbedderOptions(cfg core.EmbeddingConfig) map[string]string {
	out := maps.Clone(cfg.Options)
	if out == nil {
		out = map[string]string{}
	}
	set := func(k, v string) {
		if v != "" && v != "0" {
			out[k] = v
		}
	}
	set("dim", strconv.Itoa(cfg.Dim))
	set("model", cfg.Model)
	set("base_url", cfg.BaseURL)
	// api_key_env has a default (OPENAI_API_KEY): one given in options
	// wins over it.
	if _, ok := out["api_key_env"]; !ok {
		set("api_key_env", cfg.APIKeyEnv)
	}
	set("batch_size", strconv.Itoa(cfg.BatchSize))
	set("model_dir", cfg.ModelDir)
	return out
}

// options reads a built-in's option map and collects what is wrong with
// it.
type options struct {
	kind, name string
	m          map[string]string
	errs       []string
}

func parse(kind, name string, m map[string]string) *options {
	return &options{kind: kind, name: name, m: m}
}

func (o *options) fail(key, format string, args ...any) {
	o.errs = append(o.errs, fmt.Sprintf("option %s: %s", key, fmt.Sprintf(format, args...)))
}

func (o *options) string(key, def string) string {
	if v, ok := o.m[key]; ok && v != "" {
		return v
	}
	return def
}

func (o *options) int(key string, def int) int {
	v, ok := o.m[key]
	if !ok || v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		o.fail(key, "%q is not a whole number", v)
		return def
	}
	return n
}

func (o *options) bool(key string) bool {
	v, ok := o.m[key]
	if !ok || v == "" {
		return false
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		o.fail(key, "%q is not true or false", v)
	}
	return b
}

func (o *options) duration(key string, def time.Duration) time.Duration {
	v, ok := o.m[key]
	if !ok || v == "" {
		return def
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		o.fail(key, "%q is not a duration such as 30s", v)
		return def
	}
	return d
}

// only fails every option but the allowed ones.
func (o *options) only(allowed ...string) {
	for _, k := range slices.Sorted(maps.Keys(o.m)) {
		if !slices.Contains(allowed, k) {
			if len(allowed) == 0 {
				o.fail(k, "unknown: the %s %s takes no options", o.name, o.kind)
			} else {
				o.fail(k, "unknown: the %s %s takes %s", o.name, o.kind, strings.Join(allowed, ", "))
			}
		}
	}
}

// err returns the collected option errors and cause as one error that
// names the built-in; nil if there are none. Bad options are an
// [OptionError].
func (o *options) err(cause error) error {
	switch {
	case len(o.errs) > 0:
		msg := strings.Join(o.errs, "; ")
		if cause != nil {
			msg += "; " + cause.Error()
		}
		return &OptionError{Kind: o.kind, Name: o.name, Msg: msg}
	case cause != nil:
		return fmt.Errorf("%s %s: %w", o.kind, o.name, cause)
	}
	return nil
}

// OptionError reports bad options for a built-in. It wraps core.ErrInvalid.
type OptionError struct {
	Kind, Name string
	Msg        string
}

func (e *OptionError) Error() string { return e.Kind + " " + e.Name + ": " + e.Msg }

func (e *OptionError) Unwrap() error { return core.ErrInvalid }
