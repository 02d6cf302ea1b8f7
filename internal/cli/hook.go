package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/hooks"
)

// hookError is how `huimem hook` fails: one line on stderr and exit code
// 1, whatever went wrong. It has no Unwrap on purpose: exitCode then
// maps it to 1, never to 2, which Claude Code reads as "block" (a
// UserPromptSubmit hook that exits 2 erases the prompt).
type hookError struct{ msg string }

func (e hookError) Error() string { return e.msg }

func (a *App) hookCmd() *cobra.Command {
	var ns string
	cmd := &cobra.Command{
		Use:   "hook claude-code|codex",
		Short: "Run as a coding agent's hook: capture its session, wake it up, recall for its prompts",
		Long: `Run as a hook of Claude Code or Codex (see "huimem hooks install"). The
agent writes a JSON object on stdin (session_id, transcript_path, cwd,
hook_event_name, prompt, ...); what happens depends on hook_event_name:

  Stop, SubagentStop, PreCompact, SessionEnd
      ingest what is new in the session's transcript (transcript_path), as
      "huimem ingest" does: tracked by path and content, so a capture
      that finds nothing new does nothing and one that finds more adds
      only that. Prints nothing.
  SessionStart
      print a wake-up context within hooks.wake_budget_tokens: the
      project's latest sessions and the decisions recorded in them, with
      their [id:...] anchors.
  UserPromptSubmit
      recall the prompt and print the turns whose relevance reaches
      retriever.min_relevance, within hooks.recall_budget_tokens, with
      their anchors; nothing when nothing is relevant.

Text for the model is printed as {"hookSpecificOutput": {"hookEventName",
"additionalContext"}}, which both agents read. Each project (the git root
of cwd, else cwd) has its own namespace (hooks.namespace, --namespace).

A hook never blocks the agent and never asks the model for anything: on
any failure (input that is not JSON, a missing transcript, a home locked
longer than hooks.lock_wait) it prints one line on stderr and exits 1,
and loses nothing, since the next capture ingests what this one missed.
An event it does not act on exits 0.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return hookError{"hook: give the agent: claude-code or codex"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.runHook(cmd.Context(), args[0], ns); err != nil {
				return hookError{oneLine(fmt.Sprintf("hook %s: %v", args[0], err))}
			}
			return nil
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return hookError{"hook: " + err.Error()} })
	cmd.Flags().StringVarP(&ns, "namespace", "n", "", "namespace to read and write (default hooks.namespace, else the project's own)")
	return cmd
}

// runHook is one hook run: read the agent's input, then capture, wake
// up or recall.
func (a *App) runHook(ctx context.Context, agentName, ns string) error {
	agent, err := hooks.ParseAgent(agentName)
	if err != nil {
		return err
	}
	p, err := hooks.ReadPayload(a.Stdin)
	if err != nil {
		return err
	}
	action := hooks.ActionOf(p.Event)
	if action == hooks.Ignore {
		a.logf("huimem: hook %s: nothing to do for %s (huimem acts on %s)", agent, p.Event, strings.Join(agent.Events(), ", "))
		return nil
	}
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	if ns == "" {
		if ns, err = hookNamespace(cfg, p.Cwd); err != nil {
			return err
		}
	}
	if err := core.ValidateNamespace(ns); err != nil {
		return fmt.Errorf("--namespace: %v", err)
	}
	var transcript string
	if action == hooks.Capture {
		if p.TranscriptPath == "" {
			return fmt.Errorf("%s: the hook input has no transcript_path", p.Event)
		}
		if transcript, err = filepath.Abs(p.TranscriptPath); err != nil {
			return err
		}
		if _, err := os.Stat(transcript); err != nil {
			return fmt.Errorf("%s: transcript: %w", p.Event, err)
		}
	} else if home, err := filepath.Abs(cfg.Storage.Home); err == nil && !homeExists(home) && cfg.Storage.Backend != core.BackendPostgres {
		return nil // nothing remembered yet
	}
	e, cfg, err := a.openWith(ctx, engine.Options{}, func(c *core.Config) { c.Storage.LockWait = c.Hooks.LockWait })
	if err != nil {
		return hookFailed(p.Event, err, cfg)
	}
	defer e.Close()
	opts := hooks.Options{Namespace: ns, Skip: p.SessionID, Location: cfg.Time.Location()}
	var text string
	switch action {
	case hooks.Capture:
		_, err = e.IngestSource(ctx, transcript, engine.SourceOptions{Namespace: ns, Format: agent.Format(), Location: cfg.Time.Location()})
	case hooks.Wake:
		if p.Source == "compact" {
			opts.Skip = "" // the agent's context lost the session's turns
		}
		opts.Budget = cfg.Hooks.WakeBudgetTokens
		text, err = hooks.WakeUp(ctx, e, cfg.Hooks.WakeSessions, opts)
	case hooks.Recall:
		opts.Budget = cfg.Hooks.RecallBudgetTokens
		text, err = hooks.PromptContext(ctx, e, p.Prompt, cfg.Hooks.RecallTopK, *cfg.Retriever.MinRelevance, opts)
	}
	if err != nil {
		return hookFailed(p.Event, err, cfg)
	}
	if text != "" {
		_, err = a.Stdout.Write(hooks.Output(p.Event, text))
	}
	return err
}

// hookFailed says what failed in a hook, and for a capture that waited
// in vain for another writer, that nothing is lost.
func hookFailed(event string, err error, cfg core.Config) error {
	if errors.Is(err, core.ErrLocked) {
		return fmt.Errorf("%s: %w; skipped after hooks.lock_wait (%v): the next capture takes what this one missed", event, err, cfg.Hooks.LockWait)
	}
	return fmt.Errorf("%s: %w", event, err)
}

// hookNamespace returns the namespace the hooks use for an agent running
// in dir: hooks.namespace when it is set, else the project's own (see
// hooks.ProjectNamespace). An empty dir is the current folder.
func hookNamespace(cfg core.Config, dir string) (string, error) {
	if cfg.Hooks.Namespace != "" {
		return cfg.Hooks.Namespace, nil
	}
	if dir == "" {
		dir = "."
	}
	root, err := hooks.ProjectRoot(dir)
	if err != nil {
		return "", err
	}
	return hooks.ProjectNamespace(root), nil
}
