package transcript

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

func TestLayoutMatchesRender(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	base := time.Date(2026, 4, 13, 23, 50, 0, 0, time.FixedZone("", 8*3600))
	var msgs []core.Message
	texts := []string{"one line", "two\nlines", "blank\n\nline inside", "trailing newline\n", "\nleading", "### looks like a header", "中文\r\nwindows line"}
	for i := 0; i < 500; i++ {
		m := core.Message{Session: "s/1", Time: base.Add(time.Duration(i) * time.Minute), Text: texts[r.IntN(len(texts))] + fmt.Sprint(i)}
		if i%2 == 0 {
			m.Role, m.Speaker = core.RoleUser, "Alice"
		} else {
			m.Role = core.RoleAssistant
		}
		msgs = append(msgs, m)
	}
	var buf bytes.Buffer
	if err := Render(&buf, "", "s/1", msgs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	counts := make([]int, len(msgs))
	for i := range msgs {
		counts[i] = TextLines(msgs[i].Text)
	}
	for i, p := range Layout(counts) {
		if got, want := lines[p.Header-1], MessageHeader(&msgs[i]); got != want {
			t.Fatalf("message %d: line %d is %q, want header %q", i, p.Header, got, want)
		}
		if got := strings.Join(lines[p.TextStart-1:p.TextEnd], "\n"); got != msgs[i].Text {
			t.Fatalf("message %d: lines %d-%d are %q, want %q", i, p.TextStart, p.TextEnd, got, msgs[i].Text)
		}
	}
	var again bytes.Buffer
	Render(&again, "", "s/1", msgs)
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Errorf("rendering is not deterministic")
	}
	if !strings.HasPrefix(buf.String(), "# chat_s/1\n\n- session: s/1\n- namespace: -\n- participants: Alice, assistant\n- first: 2026-04-13 Mon 23:50:00 +08:00\n") {
		t.Errorf("header:\n%s", buf.String()[:200])
	}
}

func TestSessionFile(t *testing.T) {
	sh := time.FixedZone("", 8*3600)
	for _, tt := range []struct {
		ns, session string
		at          time.Time
		want        string
	}{
		{"", "s1", time.Date(2026, 4, 13, 9, 0, 0, 0, sh), "2026-W16/2026-04-13/chat_s1.md"},
		// Sunday 2026-04-12 is still ISO week 15.
		{"", "s1", time.Date(2026, 4, 12, 23, 59, 0, 0, sh), "2026-W15/2026-04-12/chat_s1.md"},
		// The year's first ISO week can start in December.
		{"", "x", time.Date(2025, 12, 29, 0, 0, 0, 0, time.UTC), "2026-W01/2025-12-29/chat_x.md"},
		{"alice", "a b/c", time.Date(2026, 4, 13, 9, 0, 0, 0, sh), "@alice/2026-W16/2026-04-13/chat_a%20b%2Fc.md"},
		{"", "../../etc/passwd", time.Date(2026, 4, 13, 9, 0, 0, 0, sh), "2026-W16/2026-04-13/chat_%2E.%2F..%2Fetc%2Fpasswd.md"},
		{"", "会话一", time.Date(2026, 4, 13, 9, 0, 0, 0, sh), "2026-W16/2026-04-13/chat_会话一.md"},
	} {
		if got := SessionFile(tt.ns, tt.session, tt.at); got != tt.want {
			t.Errorf("SessionFile(%q, %q, %v) = %q, want %q", tt.ns, tt.session, tt.at, got, tt.want)
		}
	}
}

func TestFileNameIsBoundedAndDistinct(t *testing.T) {
	a := strings.Repeat("长", 150) + "a"
	b := strings.Repeat("长", 150) + "b"
	fa, fb := FileName(a), FileName(b)
	if fa == fb {
		t.Errorf("distinct long sessions share a file name")
	}
	if len(fa) > maxNameBytes || len(fb) > maxNameBytes {
		t.Errorf("file names too long: %d, %d bytes", len(fa), len(fb))
	}
}
