package core

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Modes the engine runs in.
const (
	// ModeEnhance runs HuiMemory as a sidecar that exposes the recall tools
	// to the host's LLM loop. It is the default.
	ModeEnhance = "enhance"
	// ModeTakeover makes HuiMemory the host's whole memory kernel.
	ModeTakeover = "takeover"
)

// Config is the engine's configuration. The zero value is not valid; call
// [Config.SetDefaults] and then [Config.Validate]. Only cmd/huimem reads
// files, flags and environment variables; the library takes this struct.
type Config struct {
	Mode       string          `mapstructure:"mode" json:"mode" yaml:"mode"`
	Storage    StorageConfig   `mapstructure:"storage" json:"storage" yaml:"storage"`
	Embedding  EmbeddingConfig `mapstructure:"embedding" json:"embedding" yaml:"embedding"`
	Chunker    PluginSpec      `mapstructure:"chunker" json:"chunker" yaml:"chunker"`
	Extractors []PluginSpec    `mapstructure:"extractors" json:"extractors" yaml:"extractors"`
	Retriever  RetrieverConfig `mapstructure:"retriever" json:"retriever" yaml:"retriever"`
	Archive    ArchiveConfig   `mapstructure:"archive" json:"archive" yaml:"archive"`
	Plugins    PluginsConfig   `mapstructure:"plugins" json:"plugins" yaml:"plugins"`
	Server     ServerConfig    `mapstructure:"server" json:"server" yaml:"server"`
	Time       TimeConfig      `mapstructure:"time" json:"time" yaml:"time"`
	Takeover   TakeoverConfig  `mapstructure:"takeover" json:"takeover" yaml:"takeover"`
	Hooks      HooksConfig     `mapstructure:"hooks" json:"hooks" yaml:"hooks"`
}

// TimeConfig says in which time zone times are read and shown.
type TimeConfig struct {
	// Zone is an IANA time zone name, such as "Asia/Shanghai" or "UTC".
	// It is the zone of "now", of time phrases ("上周三下午" is a Wednesday
	// afternoon there), of times given without an offset, and of times
	// shown to a reader. Empty means the machine's zone.
	Zone string `mapstructure:"zone" json:"zone" yaml:"zone"`
}

// Location returns the zone named by Zone, or time.Local when Zone is
// empty or unknown ([Config.Validate] reports an unknown one).
func (t TimeConfig) Location() *time.Location {
	if t.Zone == "" {
		return time.Local
	}
	loc, err := time.LoadLocation(t.Zone)
	if err != nil {
		return time.Local
	}
	return loc
}

// PluginSpec names a plugin: a built-in by Name, or an external program by
// Command and Args.
type PluginSpec struct {
	// Name is a built-in's name ("turn", "hash", "general", ...), or a
	// label for an external plugin.
	Name string `mapstructure:"name" json:"name" yaml:"name"`
	// Command, when set, is the plugin program to run.
	Command string   `mapstructure:"command" json:"command,omitempty" yaml:"command,omitempty"`
	Args    []string `mapstructure:"args" json:"args,omitempty" yaml:"args,omitempty"`
	// SHA256, when set, is the hex checksum the program must have.
	SHA256 string `mapstructure:"sha256" json:"sha256,omitempty" yaml:"sha256,omitempty"`
	// Options are passed to the plugin when it starts.
	Options map[string]string `mapstructure:"options" json:"options,omitempty" yaml:"options,omitempty"`
}

// External reports whether the spec names an external program.
func (p PluginSpec) External() bool { return p.Command != "" }

// EmbeddingConfig chooses the embedder.
type EmbeddingConfig struct {
	PluginSpec `mapstructure:",squash" yaml:",inline"`
	// Dim is the vector dimension, for embedders that let you choose it
	// (hash) or that must be checked (openai).
	Dim int `mapstructure:"dim" json:"dim" yaml:"dim"`
	// Model names the model, for embedders that serve several.
	Model string `mapstructure:"model" json:"model,omitempty" yaml:"model,omitempty"`
	// BaseURL is the endpoint of an OpenAI-compatible embeddings server.
	BaseURL string `mapstructure:"base_url" json:"base_url,omitempty" yaml:"base_url,omitempty"`
	// APIKeyEnv names the environment variable that holds the API key.
	APIKeyEnv string `mapstructure:"api_key_env" json:"api_key_env,omitempty" yaml:"api_key_env,omitempty"`
	// BatchSize is how many texts go to the embedder in one call.
	BatchSize int `mapstructure:"batch_size" json:"batch_size" yaml:"batch_size"`
	// ModelDir is where local model weights live (use-lite).
	ModelDir string `mapstructure:"model_dir" json:"model_dir,omitempty" yaml:"model_dir,omitempty"`
}

// RetrieverConfig tunes recall.
type RetrieverConfig struct {
	// TopK is the default number of hits.
	TopK int `mapstructure:"top_k" json:"top_k" yaml:"top_k"`
	// VectorWeight and BM25Weight weigh the two normalised signals.
	VectorWeight float64 `mapstructure:"vector_weight" json:"vector_weight" yaml:"vector_weight"`
	BM25Weight   float64 `mapstructure:"bm25_weight" json:"bm25_weight" yaml:"bm25_weight"`
	// ContextBoost weighs a chunk's neighbours' BM25 scores against its
	// own: at query time, each candidate's BM25 signal gains ContextBoost
	// times its previous chunk's own score and half that times its next
	// chunk's, so that the turn that answers a question is found by the
	// question's words in the turn before it; 0 turns it off. Nil means the
	// default, [DefaultContextBoost].
	ContextBoost *float64 `mapstructure:"context_boost" json:"context_boost" yaml:"context_boost"`
	// ReplyBoost weighs matches in a chunk's assistant messages against
	// matches in its other messages, in BM25 (the two fields' scores are
	// added, without coordination); 0 ignores the assistant's words. Nil
	// means the default, [DefaultReplyBoost].
	ReplyBoost *float64 `mapstructure:"reply_boost" json:"reply_boost" yaml:"reply_boost"`
	// MinRelevance is the "nothing found" floor: when none of the
	// search's candidates (the top_k hits, then the rest of the pool they
	// were chosen from) reaches it in absolute relevance (see
	// [Hit.Relevance]), recall returns no hits, so that a query about
	// nothing in the memory finds nothing; 0 turns the floor off. It does not apply to an index of
	// fewer than 500 chunks. Nil means the default, [DefaultMinRelevance].
	MinRelevance *float64 `mapstructure:"min_relevance" json:"min_relevance" yaml:"min_relevance"`
	// FloorSimilarity lets the embedder's similarity take part in the
	// MinRelevance floor: a query found something when the best hit's
	// relevance plus WEIGHT × (the best hit's cosine − CENTER) reaches
	// MinRelevance. "auto" (the default) takes WEIGHT and CENTER from the
	// embedder's measured calibration (see [SimilarityCalibration]); an
	// embedder without one (hash, or any other) gets relevance alone, as
	// "off" does; "WEIGHT,CENTER" (such as "2,0.4") sets them.
	FloorSimilarity string `mapstructure:"floor_similarity" json:"floor_similarity" yaml:"floor_similarity"`
	// SessionBoost adds session-level evidence to score fusion: each
	// candidate gains SessionBoost times its session's share of the pool's
	// BM25 evidence; 0 turns it off. Nil means the default,
	// [DefaultSessionBoost].
	SessionBoost *float64 `mapstructure:"session_boost" json:"session_boost" yaml:"session_boost"`
	// Fusion is "score" (weighted min-max score fusion, the default) or
	// "rrf" (reciprocal rank fusion).
	Fusion string `mapstructure:"fusion" json:"fusion" yaml:"fusion"`
	// PoolFactor sets the candidate pool: PoolFactor×top_k from each signal.
	PoolFactor int `mapstructure:"pool_factor" json:"pool_factor" yaml:"pool_factor"`
	// TimePoolFactor widens the pool when a time window is set, up to
	// PoolCap candidates from each signal.
	TimePoolFactor int `mapstructure:"time_pool_factor" json:"time_pool_factor" yaml:"time_pool_factor"`
	PoolCap        int `mapstructure:"pool_cap" json:"pool_cap" yaml:"pool_cap"`
	// ContextWindow is the default number of neighbours on each side.
	ContextWindow int `mapstructure:"context_window" json:"context_window" yaml:"context_window"`
	// EnableProgressiveScan scans week by week, newest first, when a query
	// without a time phrase finds fewer than top_k hits.
	EnableProgressiveScan bool `mapstructure:"enable_progressive_scan" json:"enable_progressive_scan" yaml:"enable_progressive_scan"`
	// MaxScanWeeks bounds a progressive scan; PerWeek bounds what one week
	// contributes.
	MaxScanWeeks int `mapstructure:"max_scan_weeks" json:"max_scan_weeks" yaml:"max_scan_weeks"`
	PerWeek      int `mapstructure:"per_week" json:"per_week" yaml:"per_week"`
	// StrictTime keeps a query's time phrase as a hard window even when it
	// holds nothing relevant. By default recall then searches the rest of
	// the time the query allows and sets Results.Widened.
	StrictTime bool `mapstructure:"strict_time" json:"strict_time" yaml:"strict_time"`
}

// ArchiveConfig controls weekly archives.
type ArchiveConfig struct {
	// AutoSeal seals finished weeks at ingest.
	AutoSeal bool `mapstructure:"auto_seal" json:"auto_seal" yaml:"auto_seal"`
	// Level is the zstd compression level.
	Level int `mapstructure:"level" json:"level" yaml:"level"`
	// MaxWeekMB bounds the decompressed size of one week's archive.
	MaxWeekMB int `mapstructure:"max_week_mb" json:"max_week_mb" yaml:"max_week_mb"`
}

// PluginsConfig controls how plugins run.
type PluginsConfig struct {
	// Timeout bounds one plugin call.
	Timeout time.Duration `mapstructure:"timeout" json:"timeout" yaml:"timeout"`
	// Subprocess runs each built-in plugin (hash, turn, general, ...) as
	// a subprocess over go-plugin, as external plugins (those with a
	// command) always run. By default built-ins run inside the engine's
	// process: a one-shot command then starts no second process.
	Subprocess bool `mapstructure:"subprocess" json:"subprocess" yaml:"subprocess"`
}

// Defaults of the retriever's weights (see docs/recall-quality.md for the
// measurements behind them).
const (
	// DefaultVectorWeight and DefaultBM25Weight are the default fusion
	// weights.
	DefaultVectorWeight = 0.1
	DefaultBM25Weight   = 0.9
	// DefaultContextBoost is the default of RetrieverConfig.ContextBoost.
	DefaultContextBoost = 0.3
	// DefaultReplyBoost is the default of RetrieverConfig.ReplyBoost: the
	// assistant's words find an assistant's message that no user message
	// matches, and rank below every user message that does
	// (docs/recall-quality.md: BEAM R@10 0.586 at 0.3, 0.601 at 0.01 and
	// at 0).
	DefaultReplyBoost = 0.01
	// DefaultMinRelevance is the default of RetrieverConfig.MinRelevance.
	DefaultMinRelevance = 0.3
	// DefaultSessionBoost is the default of RetrieverConfig.SessionBoost.
	DefaultSessionBoost = 0.4
)

// DefaultHome returns the default data directory, ~/.huimem, or ./data
// when there is no home directory.
func DefaultHome() string {
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".huimem")
	}
	return "data"
}

// SetDefaults fills every unset field with its documented default.
func (c *Config) SetDefaults() {
	if c.Mode == "" {
		c.Mode = ModeEnhance
	}
	c.Storage.setDefaults()
	if c.Embedding.Name == "" && c.Embedding.Command == "" {
		c.Embedding.Name = "hash"
	}
	if c.Embedding.Dim == 0 && c.Embedding.Name == "hash" {
		c.Embedding.Dim = 256
	}
	if c.Embedding.APIKeyEnv == "" {
		c.Embedding.APIKeyEnv = "OPENAI_API_KEY"
	}
	if c.Embedding.BatchSize == 0 {
		c.Embedding.BatchSize = 64
	}
	if c.Chunker.Name == "" && c.Chunker.Command == "" {
		c.Chunker.Name = "turn"
	}
	r := &c.Retriever
	if r.TopK == 0 {
		r.TopK = 5
	}
	if r.VectorWeight == 0 && r.BM25Weight == 0 {
		r.VectorWeight, r.BM25Weight = DefaultVectorWeight, DefaultBM25Weight
	}
	if r.Fusion == "" {
		r.Fusion = "score"
	}
	if r.ContextBoost == nil {
		r.ContextBoost = new(DefaultContextBoost)
	}
	if r.ReplyBoost == nil {
		r.ReplyBoost = new(DefaultReplyBoost)
	}
	if r.MinRelevance == nil {
		r.MinRelevance = new(DefaultMinRelevance)
	}
	if r.FloorSimilarity == "" {
		r.FloorSimilarity = FloorSimilarityAuto
	}
	if r.SessionBoost == nil {
		r.SessionBoost = new(DefaultSessionBoost)
	}
	if r.PoolFactor == 0 {
		r.PoolFactor = 4
	}
	if r.TimePoolFactor == 0 {
		r.TimePoolFactor = 15
	}
	if r.PoolCap == 0 {
		r.PoolCap = 500
	}
	if r.MaxScanWeeks == 0 {
		r.MaxScanWeeks = 16
	}
	if r.PerWeek == 0 {
		r.PerWeek = 5
	}
	if c.Archive.Level == 0 {
		c.Archive.Level = 3
	}
	if c.Archive.MaxWeekMB == 0 {
		c.Archive.MaxWeekMB = 4096
	}
	if c.Plugins.Timeout == 0 {
		c.Plugins.Timeout = 60 * time.Second
	}
	if c.Server.Addr == "" {
		c.Server.Addr = "127.0.0.1:7878"
	}
	if c.Server.MaxBodyMB == 0 {
		c.Server.MaxBodyMB = 8
	}
	if c.Server.ShutdownTimeout == 0 {
		c.Server.ShutdownTimeout = 30 * time.Second
	}
	t := &c.Takeover
	if t.BudgetTokens == 0 {
		t.BudgetTokens = 8000
	}
	if t.MemoryShare == 0 && t.ProfileShare == 0 {
		t.MemoryShare, t.ProfileShare = 0.3, 0.1
	}
	if t.RecallTopK == 0 {
		t.RecallTopK = 8
	}
	if t.ProfileItems == 0 {
		t.ProfileItems = 12
	}
	if t.Tokenizer == "" {
		t.Tokenizer = "o200k_base"
	}
	if t.APIKeyEnv == "" {
		t.APIKeyEnv = "OPENAI_API_KEY"
	}
	if t.UpstreamTimeout == 0 {
		t.UpstreamTimeout = 120 * time.Second
	}
	if t.MaxToolRounds == 0 {
		t.MaxToolRounds = 4
	}
	c.Hooks.setDefaults()
}

// ConfigError reports an invalid configuration value.
type ConfigError struct {
	Key string
	Msg string
}

func (e *ConfigError) Error() string { return fmt.Sprintf("config: %s: %s", e.Key, e.Msg) }

func (e *ConfigError) Unwrap() error { return ErrInvalid }

// Validate reports every invalid value, joined, or nil.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &ConfigError{Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if c.Mode != ModeEnhance && c.Mode != ModeTakeover {
		bad("mode", "%q is not enhance or takeover", c.Mode)
	}
	c.Storage.validate(bad)
	if c.Embedding.Dim < 0 || c.Embedding.Dim > 1<<16 {
		bad("embedding.dim", "%d is out of range", c.Embedding.Dim)
	}
	if c.Embedding.BatchSize < 1 || c.Embedding.BatchSize > 4096 {
		bad("embedding.batch_size", "%d is not between 1 and 4096", c.Embedding.BatchSize)
	}
	for key, p := range map[string]PluginSpec{"embedding": c.Embedding.PluginSpec, "chunker": c.Chunker} {
		if p.Name == "" && p.Command == "" {
			bad(key, "needs a name or a command")
		}
	}
	for i, p := range c.Extractors {
		if p.Name == "" && p.Command == "" {
			bad(fmt.Sprintf("extractors[%d]", i), "needs a name or a command")
		}
	}
	r := c.Retriever
	if r.TopK < 1 || r.TopK > 1000 {
		bad("retriever.top_k", "%d is not between 1 and 1000", r.TopK)
	}
	if r.VectorWeight < 0 || r.BM25Weight < 0 || r.VectorWeight+r.BM25Weight == 0 {
		bad("retriever.vector_weight", "weights must not be negative and must not both be 0")
	}
	if r.ContextBoost != nil && (*r.ContextBoost < 0 || *r.ContextBoost > 10) {
		bad("retriever.context_boost", "%v is not between 0 and 10", *r.ContextBoost)
	}
	if r.ReplyBoost != nil && (*r.ReplyBoost < 0 || *r.ReplyBoost > 10) {
		bad("retriever.reply_boost", "%v is not between 0 and 10", *r.ReplyBoost)
	}
	if r.SessionBoost != nil && (*r.SessionBoost < 0 || *r.SessionBoost > 10) {
		bad("retriever.session_boost", "%v is not between 0 and 10", *r.SessionBoost)
	}
	if r.MinRelevance != nil && (*r.MinRelevance < 0 || *r.MinRelevance > 1) {
		bad("retriever.min_relevance", "%v is not between 0 and 1", *r.MinRelevance)
	}
	if _, _, err := ParseFloorSimilarity(r.FloorSimilarity); err != nil {
		bad("retriever.floor_similarity", "%v", err)
	}
	if r.Fusion != "score" && r.Fusion != "rrf" {
		bad("retriever.fusion", "%q is not score or rrf", r.Fusion)
	}
	if r.PoolFactor < 1 || r.TimePoolFactor < 1 || r.PoolCap < 1 {
		bad("retriever.pool_factor", "pool sizes must be positive")
	}
	if r.ContextWindow < 0 || r.ContextWindow > 50 {
		bad("retriever.context_window", "%d is not between 0 and 50", r.ContextWindow)
	}
	if r.MaxScanWeeks < 1 || r.MaxScanWeeks > 520 {
		bad("retriever.max_scan_weeks", "%d is not between 1 and 520", r.MaxScanWeeks)
	}
	if r.PerWeek < 1 {
		bad("retriever.per_week", "must be positive")
	}
	if c.Archive.Level < 1 || c.Archive.Level > 22 {
		bad("archive.level", "%d is not a zstd level between 1 and 22", c.Archive.Level)
	}
	if c.Archive.MaxWeekMB < 1 {
		bad("archive.max_week_mb", "must be positive")
	}
	if c.Plugins.Timeout < 0 {
		bad("plugins.timeout", "must not be negative")
	}
	if c.Server.MaxBodyMB < 1 || c.Server.MaxBodyMB > 1024 {
		bad("server.max_body_mb", "%d is not between 1 and 1024", c.Server.MaxBodyMB)
	}
	if c.Server.ShutdownTimeout < 0 {
		bad("server.shutdown_timeout", "must not be negative")
	}
	for i, t := range c.Server.Tokens {
		if len(t.Token) < 16 {
			bad(fmt.Sprintf("server.tokens[%d].token", i), "must be at least 16 characters")
		}
		if err := ValidateNamespace(t.Namespace); err != nil {
			bad(fmt.Sprintf("server.tokens[%d].namespace", i), "%v", err)
		}
	}
	if t := c.Takeover; t.BudgetTokens < 256 || t.BudgetTokens > 2_000_000 {
		bad("takeover.budget_tokens", "%d is not between 256 and 2000000", t.BudgetTokens)
	}
	if t := c.Takeover; t.MemoryShare < 0 || t.ProfileShare < 0 || t.MemoryShare+t.ProfileShare > 0.9 {
		bad("takeover.memory_share", "memory_share and profile_share must not be negative and must add up to at most 0.9")
	}
	if c.Takeover.Tokenizer != "o200k_base" && c.Takeover.Tokenizer != "cl100k_base" {
		bad("takeover.tokenizer", "%q is not o200k_base or cl100k_base", c.Takeover.Tokenizer)
	}
	if c.Takeover.RecallTopK < 0 || c.Takeover.RecallTopK > 100 || c.Takeover.ProfileItems < 0 || c.Takeover.MaxToolRounds < 0 {
		bad("takeover.recall_top_k", "recall_top_k (0..100), profile_items and max_tool_rounds must not be negative")
	}
	c.Hooks.validate(bad)
	if c.Server.Token != "" && len(c.Server.Token) < 16 {
		bad("server.token", "must be at least 16 characters")
	}
	if c.Time.Zone != "" {
		if _, err := time.LoadLocation(c.Time.Zone); err != nil {
			bad("time.zone", "%q is not an IANA time zone name such as Asia/Shanghai or UTC", c.Time.Zone)
		}
	}
	return errors.Join(errs...)
}
