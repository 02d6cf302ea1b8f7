package core

import "time"

// ServerConfig configures `huimem serve` (core/server).
type ServerConfig struct {
	// Addr is the address to listen on; default 127.0.0.1:7878. An address
	// off loopback needs a token.
	Addr string `mapstructure:"addr" json:"addr" yaml:"addr"`
	// Token, when set, is required as "Authorization: Bearer TOKEN" on
	// every request, and may use any namespace.
	Token string `mapstructure:"token" json:"token,omitempty" yaml:"token"`
	// Tokens are further bearer tokens, each bound to one namespace: a
	// request with one reads and writes only that namespace.
	Tokens []TokenSpec `mapstructure:"tokens" json:"tokens,omitempty" yaml:"tokens"`
	// MaxBodyMB bounds a request body; default 8.
	MaxBodyMB int `mapstructure:"max_body_mb" json:"max_body_mb" yaml:"max_body_mb"`
	// ShutdownTimeout bounds a graceful shutdown; default 30s.
	ShutdownTimeout time.Duration `mapstructure:"shutdown_timeout" json:"shutdown_timeout" yaml:"shutdown_timeout"`
}

// TakeoverConfig configures takeover mode: the memory kernel's context
// assembly (core/kernel) and the OpenAI-compatible memory proxy.
type TakeoverConfig struct {
	// BudgetTokens is the token budget of an assembled context when a
	// request gives none; default 8000.
	BudgetTokens int `mapstructure:"budget_tokens" json:"budget_tokens" yaml:"budget_tokens"`
	// MemoryShare and ProfileShare are the shares of the budget left after
	// the new message, the rules and the tool schemas that the recalled
	// memories and the profile may use (defaults 0.3 and 0.1); recent
	// turns get the rest, including what those two leave unused.
	MemoryShare  float64 `mapstructure:"memory_share" json:"memory_share" yaml:"memory_share"`
	ProfileShare float64 `mapstructure:"profile_share" json:"profile_share" yaml:"profile_share"`
	// RecallTopK is how many long-term hits are considered; default 8.
	RecallTopK int `mapstructure:"recall_top_k" json:"recall_top_k" yaml:"recall_top_k"`
	// ProfileItems bounds the profile's lines; default 12.
	ProfileItems int `mapstructure:"profile_items" json:"profile_items" yaml:"profile_items"`
	// Tokenizer counts tokens: o200k_base (default) or cl100k_base.
	Tokenizer string `mapstructure:"tokenizer" json:"tokenizer" yaml:"tokenizer"`
	// Upstream is the OpenAI-compatible base URL (ending in /v1) the proxy
	// calls; APIKeyEnv names the variable holding its key.
	Upstream  string `mapstructure:"upstream" json:"upstream,omitempty" yaml:"upstream"`
	APIKeyEnv string `mapstructure:"api_key_env" json:"api_key_env,omitempty" yaml:"api_key_env"`
	// UpstreamTimeout bounds one upstream call; default 120s.
	UpstreamTimeout time.Duration `mapstructure:"upstream_timeout" json:"upstream_timeout" yaml:"upstream_timeout"`
	// MaxToolRounds bounds the memory tool calls the proxy runs for the
	// model in one request; default 4.
	MaxToolRounds int `mapstructure:"max_tool_rounds" json:"max_tool_rounds" yaml:"max_tool_rounds"`
}

// TokenSpec is a bearer token bound to a namespace.
type TokenSpec struct {
	Token     string `mapstructure:"token" json:"token" yaml:"token"`
	Namespace string `mapstructure:"namespace" json:"namespace" yaml:"namespace"`
}
