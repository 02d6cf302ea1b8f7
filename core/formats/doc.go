// Package formats turns chat exports into HuiMemory messages: each
// normaliser reads one file and returns its conversation as
// []core.Message, verbatim, with the export's own session ids and times.
//
// Supported formats (see [Formats] and docs/ingest-formats.md):
//
//	chatgpt      ChatGPT conversations.json (the mapping tree, current branch)
//	claude       Claude.ai export conversations.json
//	claude-code  Claude Code session JSONL (~/.claude/projects/*/*.jsonl)
//	codex        Codex CLI session JSONL (~/.codex/sessions/**/rollout-*.jsonl)
//	slack        one day file of a Slack export (<channel>/YYYY-MM-DD.json)
//	text         plain-text transcripts (">" user lines, "User:"/"Assistant:", "用户："/"助手：")
//	markdown     HuiMemory's own markdown transcripts (sessions/**/chat_*.md)
//	jsonl        HuiMemory's generic JSONL (see core/jsonl)
//
// [Detect] picks a format from a file's name and first bytes; [ReadFile]
// detects and reads in one step, and [StreamFile] detects and then yields
// the messages one by one as an iter.Seq2[core.Message, error]: the long
// formats (chatgpt, claude, claude-code, codex, jsonl) are read one line or
// one conversation at a time, so memory does not grow with the file. Noise that is not conversation is removed
// from every text ([StripNoise]): <system-reminder> blocks, hook output and
// ANSI escape sequences. Everything else is kept byte for byte.
//
// Errors are [core.InputError]s that name the file and, where there is one,
// the line (and the byte offset of bad JSON). A file of unknown format gets
// an error that lists the supported formats.
//
// The package reads files and nothing else; it imports core and core/jsonl
// only, and sits beside them under core/engine in the import graph.
// Functions are safe for concurrent use.
package formats
