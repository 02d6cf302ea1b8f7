package archive

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
)

var update = flag.Bool("update", false, "rewrite the testdata fixtures")

// The version 1 fixture: the week folder testdata/v1/2026-W16 and its
// archive testdata/v1/2026-W16.tar.zst, written by version 1 of the format.
// A new format version adds a new fixture beside it; the old one stays, and
// must stay readable.
var (
	fixtureDir     = filepath.Join("testdata", "v1", "2026-W16")
	fixtureArchive = filepath.Join("testdata", "v1", "2026-W16"+Ext)
)

// fixtureSessions renders the transcripts of the fixture week.
func fixtureSessions() map[string][]core.Message {
	sh := time.FixedZone("", 8*3600)
	at := func(d, h, m int) time.Time { return time.Date(2026, 4, d, h, m, 0, 0, sh) }
	return map[string][]core.Message{
		"s1": {
			{Session: "s1", Time: at(13, 9, 0), Role: core.RoleUser, Text: "我想在服务器上部署本地模型，用 Ollama 还是 vLLM？"},
			{Session: "s1", Time: at(13, 9, 1), Role: core.RoleAssistant, Text: "Ollama is easier to start with.\n\nvLLM has better throughput.\n"},
		},
		// Runs past midnight: filed under its first message's day.
		"late night": {
			{Session: "late night", Time: at(14, 23, 58), Speaker: "Alice", Text: "still up?"},
			{Session: "late night", Time: at(15, 0, 3), Speaker: "Bob", Text: "yes\r\nwindows line"},
		},
	}
}

// writeFixture rewrites the version 1 fixture; TestReadVersion1Fixture
// calls it with -update.
func writeFixture(t *testing.T) {
	os.RemoveAll(fixtureDir)
	for session, msgs := range fixtureSessions() {
		rel := strings.TrimPrefix(transcript.SessionFile("", session, msgs[0].Time), "2026-W16/")
		var buf bytes.Buffer
		if err := transcript.Render(&buf, "", session, msgs); err != nil {
			t.Fatal(err)
		}
		writeTree(t, fixtureDir, map[string]string{rel: buf.String()})
	}
	f, err := os.Create(fixtureArchive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Write(f, fixtureDir, WriteOptions{Week: "2026-W16"}); err != nil {
		t.Fatal(err)
	}
}

func TestReadVersion1Fixture(t *testing.T) {
	if *update {
		writeFixture(t)
	}
	info, err := Verify(fixtureArchive, testMax)
	if err != nil {
		t.Fatal(err)
	}
	m := info.Manifest
	if m.Version != 1 || m.Week != "2026-W16" || m.Namespace != "" || len(m.Files) != 2 {
		t.Errorf("manifest %+v", m)
	}
	dst := filepath.Join(t.TempDir(), "w")
	if _, err := Extract(fixtureArchive, dst, ExtractOptions{MaxBytes: testMax, SHA256: info.SHA256}); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, fixtureDir)
	if diff := cmp.Diff(want, readTree(t, dst)); diff != "" {
		t.Errorf("fixture archive differs from its folder (-want +got):\n%s", diff)
	}
	// The folder is what Render makes today: the transcript format has
	// not drifted either.
	for session, msgs := range fixtureSessions() {
		rel := strings.TrimPrefix(transcript.SessionFile("", session, msgs[0].Time), "2026-W16/")
		var buf bytes.Buffer
		transcript.Render(&buf, "", session, msgs)
		if want[rel] != buf.String() {
			t.Errorf("%s no longer renders as in the fixture", rel)
		}
	}
}

// FuzzOpen feeds arbitrary bytes to the reader: it must return an error
// or a valid archive, never panic, and never hand out a path that leaves
// the week folder.
func FuzzOpen(f *testing.F) {
	fixture, err := os.ReadFile(fixtureArchive)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fixture)
	f.Add(fixture[:len(fixture)/2])
	f.Add([]byte{})
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd})
	for _, name := range []string{"../evil", "a/b.md"} {
		m := &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{fileEntry(name, "x")}}
		f.Add(craft(f, m, []entry{{hdrNamed(name), "x"}}))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := Walk(bytes.NewReader(data), 1<<20, func(e *FileEntry, r io.Reader) error {
			if !ValidPath(e.Path) || !filepath.IsLocal(e.Path) {
				t.Fatalf("entry %q escapes the week folder", e.Path)
			}
			_, err := io.Copy(io.Discard, r)
			return err
		})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrUnsafePath) && !errors.Is(err, ErrVersion) {
				t.Fatalf("error %v wraps none of the archive errors", err)
			}
			return
		}
		if err := info.Manifest.Validate(); err != nil {
			t.Fatalf("accepted an invalid manifest: %v", err)
		}
	})
}
