package engine

import (
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

// TestLongLivedWriterLetsGo: a long-lived shared engine keeps the home
// after its write (the next write reopens nothing), and gives it up as
// soon as another engine on the home waits for it, to write or to open.
// Each sees the other's writes.
func TestLongLivedWriterLetsGo(t *testing.T) {
	home := t.TempDir()
	cfg := core.Config{Storage: core.StorageConfig{Home: home, LockWait: 10 * time.Second}}
	server, err := openWith(t, cfg, Options{Logf: t.Logf, Access: AccessShared, LongLived: true, LockWait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, cst)
	// recall reports whether e finds want among its hits for want.
	recall := func(e *Engine, want string) bool {
		t.Helper()
		res, err := e.Recall(t.Context(), core.Query{Text: want})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			for _, m := range h.Messages {
				if m.Text == want {
					return true
				}
			}
		}
		return false
	}
	for i, text := range []string{"the staging proxy listens on port 8443", "the build cache lives on the NAS"} {
		if _, err := server.Ingest(t.Context(), []core.Message{msg("s", at.Add(time.Duration(i)*time.Minute), core.RoleUser, text)}); err != nil {
			t.Fatal(err)
		}
		if !server.st.Exclusive() {
			t.Fatalf("write %d: the long-lived engine let the home go with nobody waiting", i+1)
		}
	}
	if !recall(server, "the staging proxy listens on port 8443") || !recall(server, "the build cache lives on the NAS") {
		t.Fatal("the long-lived engine does not see its own writes")
	}

	// Another engine opens the home (it waits at the gate) and writes
	// (it waits for the writer lock): the server lets go both times.
	other, err := openWith(t, cfg, Options{Logf: t.Logf, Access: AccessShared, LockWait: 10 * time.Second})
	if err != nil {
		t.Fatalf("opening beside a long-lived writer: %v", err)
	}
	defer other.Close()
	if !recall(other, "the staging proxy listens on port 8443") {
		t.Error("the other engine does not see the server's writes")
	}
	if _, err := other.Ingest(t.Context(), []core.Message{msg("o", at.Add(time.Hour), core.RoleUser, "the VPN gateway rotates keys on Mondays")}); err != nil {
		t.Fatalf("writing beside a long-lived writer: %v", err)
	}
	if other.st.Exclusive() {
		t.Error("a one-shot engine kept the home after its write")
	}
	// The server writes again (it takes the home back) and sees both.
	if _, err := server.Ingest(t.Context(), []core.Message{msg("s", at.Add(2*time.Hour), core.RoleUser, "the printer on floor 3 needs toner")}); err != nil {
		t.Fatal(err)
	}
	if !recall(server, "the VPN gateway rotates keys on Mondays") || !recall(server, "the printer on floor 3 needs toner") {
		t.Error("the server does not see the other engine's write, or its own")
	}
	if !recall(other, "the printer on floor 3 needs toner") {
		t.Error("the other engine does not see the server's last write")
	}
}
