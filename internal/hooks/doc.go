// Package hooks connects HuiMemory to coding agents that run commands at
// their lifecycle events: Claude Code and Codex. It reads the JSON an
// agent writes on a hook's stdin ([ReadPayload]), names the project's
// namespace ([ProjectRoot], [ProjectNamespace]), writes the text a hook
// adds to the model's context ([WakeUp], [PromptContext], [Output]), and
// edits the agents' settings files for `huimem hooks install` and
// `uninstall` ([AddHooks], [RemoveHooks], [AddServerJSON],
// [AddServerTOML] and their inverses), changing nothing else in them.
//
// The capture itself is the engine's incremental ingest
// (engine.Engine.IngestSource); internal/cli/hook.go is the command that
// runs it. The functions here that read memory take a [Memory], which an
// open engine is; the settings functions are pure: bytes in, bytes out.
package hooks
