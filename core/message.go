package core

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Role is who produced a message in an LLM conversation. Conversations
// between people have no roles and use [Message.Speaker] instead.
type Role string

// The roles a message may carry. The empty role is allowed when the message
// has a speaker.
const (
	RoleNone      Role = ""
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleSystem    Role = "system"
)

// Limits on identifiers, checked by [Message.Validate].
const (
	MaxNamespaceLen = 64
	MaxSessionLen   = 200
	MaxSpeakerLen   = 200
	MaxRefLen       = 200
	// MaxTextLen bounds one message's text (4 MiB).
	MaxTextLen = 4 << 20
	// MinYear and MaxYear bound message times.
	MinYear = 1900
	MaxYear = 2200
)

// Message is one utterance, kept verbatim. The engine never modifies Text.
type Message struct {
	// Namespace isolates one user's or agent's memory from another's. The
	// empty namespace is the default one.
	Namespace string `json:"namespace,omitempty"`
	// Session groups the messages of one conversation.
	Session string `json:"session"`
	// Time is when the message was said. Its location is kept and used
	// when the message is displayed and filed into a day folder.
	Time time.Time `json:"time"`
	Role Role      `json:"role,omitempty"`
	// Speaker is the display name of whoever said the message.
	Speaker string `json:"speaker,omitempty"`
	// Text is the verbatim content.
	Text string `json:"text"`
	// Ref is an optional external reference, kept and returned unchanged.
	Ref string `json:"ref,omitempty"`
}

// Who returns the name shown for the message's author: the speaker, else
// the role.
func (m *Message) Who() string {
	if m.Speaker != "" {
		return m.Speaker
	}
	return string(m.Role)
}

// Validate reports the first thing wrong with m, or nil.
func (m *Message) Validate() error {
	if err := ValidateNamespace(m.Namespace); err != nil {
		return err
	}
	switch {
	case m.Session == "":
		return fmt.Errorf("missing session")
	case len(m.Session) > MaxSessionLen:
		return fmt.Errorf("session is longer than %d bytes", MaxSessionLen)
	case !printable(m.Session):
		return fmt.Errorf("session %q has control characters or invalid UTF-8", m.Session)
	case m.Time.IsZero():
		return fmt.Errorf("missing time")
	case m.Time.Year() < MinYear || m.Time.Year() > MaxYear:
		return fmt.Errorf("time %s is outside the years %d to %d", m.Time.Format(time.RFC3339), MinYear, MaxYear)
	case m.Text == "":
		return fmt.Errorf("missing text")
	case len(m.Text) > MaxTextLen:
		return fmt.Errorf("text is longer than %d bytes", MaxTextLen)
	case !utf8.ValidString(m.Text):
		return fmt.Errorf("text is not valid UTF-8")
	case m.Role == RoleNone && m.Speaker == "":
		return fmt.Errorf("missing role and speaker: give at least one")
	case len(m.Speaker) > MaxSpeakerLen:
		return fmt.Errorf("speaker is longer than %d bytes", MaxSpeakerLen)
	case !printable(m.Speaker):
		return fmt.Errorf("speaker %q has control characters or invalid UTF-8", m.Speaker)
	case len(m.Ref) > MaxRefLen:
		return fmt.Errorf("ref is longer than %d bytes", MaxRefLen)
	case !printable(m.Ref):
		return fmt.Errorf("ref %q has control characters or invalid UTF-8", m.Ref)
	}
	switch m.Role {
	case RoleNone, RoleUser, RoleAssistant, RoleSystem:
	default:
		return fmt.Errorf("unknown role %q: want user, assistant, system or none", m.Role)
	}
	return nil
}

// ValidateNamespace reports whether ns may name a namespace: up to 64
// letters, digits, '.', '_', '-' or '@'. The empty namespace is the default.
func ValidateNamespace(ns string) error {
	if len(ns) > MaxNamespaceLen {
		return fmt.Errorf("namespace is longer than %d bytes", MaxNamespaceLen)
	}
	for _, r := range ns {
		if !(r < utf8.RuneSelf && (r == '.' || r == '_' || r == '-' || r == '@' ||
			unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return fmt.Errorf("namespace %q may hold only ASCII letters, digits and . _ - @", ns)
		}
	}
	return nil
}

func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	return strings.IndexFunc(s, unicode.IsControl) < 0
}

// MessageKey identifies a message by its content, so that ingesting the
// same message twice stores it once.
type MessageKey [16]byte

// Key returns the message's identity: a hash of namespace, session, time,
// role, speaker, ref and text.
func (m *Message) Key() MessageKey {
	h := sha256.New()
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(m.Time.UnixNano()))
	for _, s := range []string{m.Namespace, m.Session, string(m.Role), m.Speaker, m.Ref} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	h.Write(ts[:])
	h.Write([]byte(m.Text))
	var k MessageKey
	copy(k[:], h.Sum(nil))
	return k
}
