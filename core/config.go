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
}

// StorageConfig says where the engine keeps its files.
type StorageConfig struct {
	// Home is the data directory. It holds the store (huimem.db), the
	// search index (index/) and the transcripts (sessions/).
	Home string `mapstructure:"home" json:"home" yaml:"home"`
	// CacheDir holds decompressed sealed weeks; empty means <home>/cache.
	CacheDir string `mapstructure:"cache_dir" json:"cache_dir" yaml:"cache_dir"`
	// CacheTTLHours is how long an unused decompressed week stays cached.
	CacheTTLHours int `mapstructure:"cache_ttl_hours" json:"cache_ttl_hours" yaml:"cache_ttl_hours"`
	// CacheMaxMB bounds the cache's size on disk.
	CacheMaxMB int `mapstructure:"cache_max_mb" json:"cache_max_mb" yaml:"cache_max_mb"`
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
	// ContextBoost weighs matches in a chunk's neighbours' text against
	// matches in its own text, in BM25; 0 turns it off. Nil means the
	// default, 0.3.
	ContextBoost *float64 `mapstructure:"context_boost" json:"context_boost" yaml:"context_boost"`
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
	// InProcess runs built-in plugins inside the engine's process instead
	// of as subprocesses.
	InProcess bool `mapstructure:"in_process" json:"in_process" yaml:"in_process"`
}

// DefaultContextBoost is the default of RetrieverConfig.ContextBoost.
const DefaultContextBoost = 0.3

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
	if c.Storage.Home == "" {
		c.Storage.Home = DefaultHome()
	}
	if c.Storage.CacheTTLHours == 0 {
		c.Storage.CacheTTLHours = 24
	}
	if c.Storage.CacheMaxMB == 0 {
		c.Storage.CacheMaxMB = 1024
	}
	if c.Embedding.Name == "" && c.Embedding.Command == "" {
		c.Embedding.Name = "hash"
	}
	if c.Embedding.Dim == 0 && c.Embedding.Name == "hash" {
		c.Embedding.Dim = 256
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
		r.VectorWeight, r.BM25Weight = 0.6, 0.4
	}
	if r.Fusion == "" {
		r.Fusion = "score"
	}
	if r.ContextBoost == nil {
		r.ContextBoost = new(DefaultContextBoost)
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
	if c.Storage.Home == "" {
		bad("storage.home", "must be set")
	}
	if c.Storage.CacheTTLHours < 0 {
		bad("storage.cache_ttl_hours", "must not be negative")
	}
	if c.Storage.CacheMaxMB < 0 {
		bad("storage.cache_max_mb", "must not be negative")
	}
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
	return errors.Join(errs...)
}
