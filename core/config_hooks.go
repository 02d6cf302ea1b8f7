package core

import "time"

// HooksConfig configures `huimem hook`, which a coding agent (Claude Code,
// Codex) runs at its lifecycle events: it captures the agent's session
// transcript, prints a wake-up context when a session starts, and adds
// the memories relevant to each prompt (see docs/claude-code.md).
type HooksConfig struct {
	// Namespace is the namespace the hooks read and write. Empty (the
	// default) means one namespace per project, derived from the folder
	// the agent runs in: the slug of the project folder's name and a
	// short hash of its path, such as "huimemory-3f9a1c0b".
	Namespace string `mapstructure:"namespace" json:"namespace" yaml:"namespace"`
	// WakeBudgetTokens bounds the wake-up context printed at session
	// start; default 600.
	WakeBudgetTokens int `mapstructure:"wake_budget_tokens" json:"wake_budget_tokens" yaml:"wake_budget_tokens"`
	// WakeSessions is how many of the project's most recent sessions the
	// wake-up context looks at; default 5.
	WakeSessions int `mapstructure:"wake_sessions" json:"wake_sessions" yaml:"wake_sessions"`
	// RecallTopK is how many memories a prompt's recall considers;
	// default 3.
	RecallTopK int `mapstructure:"recall_top_k" json:"recall_top_k" yaml:"recall_top_k"`
	// RecallBudgetTokens bounds the memories added to a prompt; default
	// 800.
	RecallBudgetTokens int `mapstructure:"recall_budget_tokens" json:"recall_budget_tokens" yaml:"recall_budget_tokens"`
	// LockWait bounds how long a hook waits for another process's write
	// to the home; default 2s. A capture that times out is skipped, and
	// the next one takes what it missed.
	LockWait time.Duration `mapstructure:"lock_wait" json:"lock_wait" yaml:"lock_wait"`
}

func (h *HooksConfig) setDefaults() {
	if h.WakeBudgetTokens == 0 {
		h.WakeBudgetTokens = 600
	}
	if h.WakeSessions == 0 {
		h.WakeSessions = 5
	}
	if h.RecallTopK == 0 {
		h.RecallTopK = 3
	}
	if h.RecallBudgetTokens == 0 {
		h.RecallBudgetTokens = 800
	}
	if h.LockWait == 0 {
		h.LockWait = 2 * time.Second
	}
}

func (h *HooksConfig) validate(bad func(key, format string, args ...any)) {
	if err := ValidateNamespace(h.Namespace); err != nil {
		bad("hooks.namespace", "%v", err)
	}
	if h.WakeBudgetTokens < 50 || h.WakeBudgetTokens > 100_000 {
		bad("hooks.wake_budget_tokens", "%d is not between 50 and 100000", h.WakeBudgetTokens)
	}
	if h.WakeSessions < 1 || h.WakeSessions > 100 {
		bad("hooks.wake_sessions", "%d is not between 1 and 100", h.WakeSessions)
	}
	if h.RecallTopK < 1 || h.RecallTopK > 20 {
		bad("hooks.recall_top_k", "%d is not between 1 and 20", h.RecallTopK)
	}
	if h.RecallBudgetTokens < 50 || h.RecallBudgetTokens > 100_000 {
		bad("hooks.recall_budget_tokens", "%d is not between 50 and 100000", h.RecallBudgetTokens)
	}
	if h.LockWait < 0 || h.LockWait > 10*time.Minute {
		bad("hooks.lock_wait", "%v is not between 0 and 10m", h.LockWait)
	}
}
