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
// "@<namespace>/" so that two namespaces never share a file. If a message
// earlier than the first one arrives late, the session moves to that
// message's folder.
//
// Week archives: a finished week's folder is sealed into one file,
// sessions/<week>.tar.zst (see [FormatVersion] for the format): a tar
// stream compressed with zstd whose first entry, MANIFEST.json, lists every
// file with its size and sha256. [Write] packs a folder; [NewReader] and
// [Walk] read an archive as a stream and check it as they go; [Verify]
// checks a whole file; [Extract] unpacks one, all or nothing; [Cache] keeps
// decompressed weeks on disk so that reading a sealed week costs one
// decompression. Readers refuse entries that could escape the week folder
// (see [ValidPath]) or that are not regular files, bound the decompressed
// size so that a zstd bomb cannot fill the disk or memory, and report a
// truncated or damaged archive as an error wrapping [ErrCorrupt]; they never
// hand out a partial file as a whole one.
//
// The package knows nothing of the store: core/engine decides when a week
// is sealed, and records which messages live in which archive.
package archive
