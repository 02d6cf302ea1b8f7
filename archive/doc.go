// Package archive keeps HuiMemory's human-readable transcripts: one
// markdown file per session under
//
//	<home>/sessions/<ISO-week>/<date>/chat_<session>.md
//
// and, once a week is over, one zstd-compressed archive per week that stays
// readable.
//
// The rendering is deterministic: given a session's messages in order, the
// file is always byte for byte the same, and [Layout] says on which lines
// each message sits without rendering anything. The engine records those
// lines on every chunk (line_start/line_end), so a result can point at
// "2026-W11/2026-03-05/chat_s1.md:L55-L72".
//
// Filing rule: a session goes in the week and day folder of its first
// message, in that message's own time zone, even when it runs past midnight
// or into the next week. Sessions of a non-default namespace live under
// "@<namespace>/" so that two namespaces never share a file.
package archive
