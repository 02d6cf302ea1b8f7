package shared

import (
	"fmt"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/internal/pb"
)

// FormatTime renders t as the protocol sends times: RFC 3339 with
// nanoseconds, in t's own UTC offset. The zero time is "".
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}

// ParseTime reads a time that [FormatTime] wrote; "" is the zero time.
func ParseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q is not RFC 3339", s)
	}
	return t, nil
}

// MessageToPB converts a message for the wire.
func MessageToPB(m *core.Message) *pb.Message {
	return &pb.Message{
		Namespace: m.Namespace,
		Session:   m.Session,
		Time:      FormatTime(m.Time),
		Role:      string(m.Role),
		Speaker:   m.Speaker,
		Text:      m.Text,
		Ref:       m.Ref,
	}
}

// MessageFromPB converts a message from the wire.
func MessageFromPB(m *pb.Message) (core.Message, error) {
	t, err := ParseTime(m.GetTime())
	if err != nil {
		return core.Message{}, err
	}
	return core.Message{
		Namespace: m.GetNamespace(),
		Session:   m.GetSession(),
		Time:      t,
		Role:      core.Role(m.GetRole()),
		Speaker:   m.GetSpeaker(),
		Text:      m.GetText(),
		Ref:       m.GetRef(),
	}, nil
}
