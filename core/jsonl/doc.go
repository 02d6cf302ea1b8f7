// Package jsonl reads HuiMemory's generic import format: JSON Lines, one
// message per line.
//
//	{"session":"s1","time":"2026-03-05T10:00:07+08:00","role":"user","speaker":"Alice","text":"...","ref":"D1:3","namespace":"alice"}
//
// session, time and text are required, plus at least one of role and
// speaker. time is RFC 3339; a time without an offset ("2026-03-05T10:00:07"
// or "2026-03-05 10:00:07") is read in the location the caller gives.
// Blank lines are skipped. A field that is not one of [Fields] is an
// error, not ignored: a misspelt "namepsace" would otherwise put a message
// in the default namespace, where every reader sees it. Any bad line fails
// the whole file with a [core.InputError] that names the file, the line
// and the problem: in.jsonl:3: unknown field "namepsace" (did you mean
// "namespace"?). [Read] returns every message or none; [Stream] yields
// them one line at a time, in memory bounded by the longest line, and
// ends with the first bad line's error.
package jsonl
