package formats

import (
	"regexp"
	"strings"
	"sync"
)

// Regular expressions here are compiled on first use, so that a process
// that never needs them does not pay for them at init.
var (
	// ansi matches CSI sequences (colours, cursor moves), OSC sequences
	// (titles, hyperlinks) and two-byte escapes.
	ansi = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\x1b\[[0-9;?<=>!]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]`)
	})
	// noiseBlocks are tagged blocks that agents inject into a conversation
	// and that no person wrote: Claude Code's system reminders and hook
	// output.
	noiseBlocks = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)<(system-reminder|user-prompt-submit-hook|hook-output)>.*?</(?:system-reminder|user-prompt-submit-hook|hook-output)>[ \t]*\n?`)
	})
)

// StripNoise removes what is not conversation from a message text:
// <system-reminder>, <user-prompt-submit-hook> and <hook-output> blocks
// with their tags, and ANSI escape sequences. When it removed something
// it also trims the blank space left at the ends; a text with nothing to
// remove is returned unchanged, byte for byte.
func StripNoise(s string) string {
	if !strings.Contains(s, "\x1b") && !strings.Contains(s, "<") {
		return s
	}
	out := noiseBlocks().ReplaceAllString(s, "")
	out = ansi().ReplaceAllString(out, "")
	if out == s {
		return s
	}
	return strings.Trim(out, " \t\r\n")
}
