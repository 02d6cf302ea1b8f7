// Package transcript is the layout and rendering of HuiMemory's markdown
// transcripts: where a session's transcript lives under the sessions
// folder (a week folder and a day folder, "2026-W15/2026-04-13/chat_s1.md",
// with "@alice/" in front for namespace "alice"), and the exact lines it
// holds, so that every chunk can record the lines it covers and show them
// with virtual line numbers.
//
// It needs no cgo and imports only core and timeparse: the chunkers, the
// extractors and the renderers use it without linking zstd. Sealing weeks
// into zstd archives is the archive package's job.
package transcript
