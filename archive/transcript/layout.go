package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/huimemory/huimemory/timeparse"
)

// SessionDir returns the folder, relative to the sessions root, that holds
// the transcripts of a namespace's week: "2026-W15" for the default
// namespace and "@alice/2026-W15" for namespace "alice".
func SessionDir(namespace, week string) string {
	if namespace == "" {
		return week
	}
	return "@" + namespace + "/" + week
}

// SessionFile returns the transcript path, relative to the sessions root,
// of a session whose first message was said at first:
// "2026-W15/2026-04-13/chat_s1.md".
func SessionFile(namespace, session string, first time.Time) string {
	return path.Join(SessionDir(namespace, timeparse.WeekOf(first).String()), first.Format("2006-01-02"),
		"chat_"+FileName(session)+".md")
}

// maxNameBytes bounds the session part of a file name; file systems allow
// 255 bytes.
const maxNameBytes = 180

// FileName turns a session id into a safe file-name fragment. Letters,
// digits and "-_." pass through; every other byte becomes %XX, and a
// leading dot is escaped. Names that would be too long are cut and given a
// hash suffix, so that distinct sessions never share a file.
func FileName(session string) string {
	var b strings.Builder
	for i, r := range session {
		switch {
		case r == '.' && i == 0:
			b.WriteString("%2E")
		case r == '-' || r == '_' || r == '.' ||
			(r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))):
			b.WriteRune(r)
		default:
			for _, c := range []byte(string(r)) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		}
	}
	s := b.String()
	if len(s) > maxNameBytes {
		sum := sha256.Sum256([]byte(session))
		cut := maxNameBytes - 17
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "~" + hex.EncodeToString(sum[:8])
	}
	return s
}
