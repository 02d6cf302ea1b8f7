package archive

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/DataDog/zstd"
	"github.com/google/go-cmp/cmp"
)

const testMax = 16 << 20

// weekFiles is a small week folder: transcripts with blank lines, CRLF,
// trailing newlines, non-ASCII names, an empty file and a nested folder.
var weekFiles = map[string]string{
	"2026-04-13/chat_s1.md":          "# chat_s1\n\nhello\n\nworld\n",
	"2026-04-13/chat_会话一.md":         "中文\r\nwindows line\r\n",
	"2026-04-14/chat_s%2F2.md":       strings.Repeat("a fairly repetitive line of chat\n", 500),
	"2026-04-19/chat_late.md":        "",
	"2026-04-19/notes/keep-this.txt": "a file nobody asked for is kept too\n",
}

func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func readTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pack writes files as a week folder and packs it into a file.
func pack(t testing.TB, files map[string]string) (string, *Info) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "2026-W16")
	writeTree(t, dir, files)
	var buf bytes.Buffer
	info, err := Write(&buf, dir, WriteOptions{Week: "2026-W16", Namespace: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "2026-W16"+Ext)
	if err := os.WriteFile(out, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return out, info
}

func TestRoundTrip(t *testing.T) {
	src, info := pack(t, weekFiles)
	if info.Manifest.Size() == 0 || info.Bytes == 0 || len(info.SHA256) != 64 {
		t.Fatalf("info %+v", info)
	}
	raw, _ := os.ReadFile(src)
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != info.SHA256 || int64(len(raw)) != info.Bytes {
		t.Errorf("Write reported size %d sha %s; the file has %d bytes", info.Bytes, info.SHA256, len(raw))
	}
	v, err := Verify(src, testMax)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(info, v); diff != "" {
		t.Errorf("Verify disagrees with Write (-write +verify):\n%s", diff)
	}
	dst := filepath.Join(t.TempDir(), "out")
	if _, err := Extract(src, dst, ExtractOptions{MaxBytes: testMax, SHA256: info.SHA256, Sync: true}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(weekFiles, readTree(t, dst)); diff != "" {
		t.Errorf("extracted files differ (-want +got):\n%s", diff)
	}
	// Standard tools see a plain tar stream with the manifest first.
	zr := zstd.NewReader(bytes.NewReader(raw))
	defer zr.Close()
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
	want := []string{ManifestName, "2026-04-13/chat_s1.md", "2026-04-13/chat_会话一.md", "2026-04-14/chat_s%2F2.md", "2026-04-19/chat_late.md", "2026-04-19/notes/keep-this.txt"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tar entries (-want +got):\n%s", diff)
	}
}

func TestWriteIsDeterministic(t *testing.T) {
	a, _ := pack(t, weekFiles)
	b, _ := pack(t, weekFiles)
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if !bytes.Equal(da, db) {
		t.Errorf("packing the same files twice gave different archives")
	}
}

func TestExtractRefusesExistingDst(t *testing.T) {
	src, _ := pack(t, weekFiles)
	dst := t.TempDir()
	writeTree(t, dst, map[string]string{"mine.txt": "x"})
	if _, err := Extract(src, dst, ExtractOptions{MaxBytes: testMax}); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Extract into a non-empty folder: %v, want ErrExist", err)
	}
	if got := readTree(t, dst); len(got) != 1 {
		t.Errorf("dst changed: %v", got)
	}
	assertNoTemp(t, filepath.Dir(dst))
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary %s left behind", e.Name())
		}
	}
}

func TestWriteRejects(t *testing.T) {
	tests := []struct {
		name  string
		setup func(dir string) error
		opts  WriteOptions
		want  error
	}{
		{"symlink", func(dir string) error { return os.Symlink("/etc/passwd", filepath.Join(dir, "2026-04-13", "link.md")) }, WriteOptions{Week: "2026-W16"}, ErrUnsafePath},
		{"backslash name", func(dir string) error { return os.WriteFile(filepath.Join(dir, `a\b.md`), nil, 0o600) }, WriteOptions{Week: "2026-W16"}, ErrUnsafePath},
		{"too large", func(string) error { return nil }, WriteOptions{Week: "2026-W16", MaxBytes: 10}, ErrTooLarge},
		{"bad week", func(string) error { return nil }, WriteOptions{Week: "2026-16"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, weekFiles)
			if err := tt.setup(dir); err != nil {
				t.Fatal(err)
			}
			_, err := Write(io.Discard, dir, tt.opts)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("Write: %v, want %v", err, tt.want)
			}
		})
	}
}

// TestCorruptByte flips one byte at a time: every damaged archive either
// fails, or (when the byte did not matter, as in some header fields) reads
// back exactly the original files. It never yields different content.
func TestCorruptByte(t *testing.T) {
	src, info := pack(t, weekFiles)
	raw, _ := os.ReadFile(src)
	failed := 0
	for off := range raw {
		bad := bytes.Clone(raw)
		bad[off] ^= 0x5a
		got := map[string]string{}
		wi, err := Walk(bytes.NewReader(bad), testMax, func(f *FileEntry, r io.Reader) error {
			data, err := io.ReadAll(r)
			got[f.Path] = string(data)
			return err
		})
		if err != nil {
			failed++
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrUnsafePath) {
				t.Fatalf("offset %d: error %v wraps none of the archive errors", off, err)
			}
			continue
		}
		if diff := cmp.Diff(weekFiles, got); diff != "" {
			t.Fatalf("offset %d: corrupt archive read back different files:\n%s", off, diff)
		}
		// The bytes differ, so the recorded checksum catches it.
		if wi.SHA256 == info.SHA256 {
			t.Fatalf("offset %d: checksum unchanged", off)
		}
	}
	if failed < len(raw)*9/10 {
		t.Errorf("only %d of %d corrupt bytes were noticed by the format itself", failed, len(raw))
	}
	t.Logf("%d of %d corrupt bytes failed the format check; the rest read back intact", failed, len(raw))
	// Through the file API: an error that names the file, and no output.
	bad := bytes.Clone(raw)
	bad[len(bad)/2] ^= 0x5a
	p := filepath.Join(t.TempDir(), "bad"+Ext)
	os.WriteFile(p, bad, 0o600)
	dst := filepath.Join(filepath.Dir(p), "out")
	_, err := Extract(p, dst, ExtractOptions{MaxBytes: testMax})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), p) {
		t.Errorf("Extract: %v, want ErrCorrupt naming %s", err, p)
	}
	if _, err := os.Stat(dst); err == nil {
		t.Errorf("a failed extraction left %s", dst)
	}
	assertNoTemp(t, filepath.Dir(p))
	if _, err := Verify(p, testMax); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), p) {
		t.Errorf("Verify: %v, want ErrCorrupt naming %s", err, p)
	}
}

func TestTruncated(t *testing.T) {
	src, _ := pack(t, weekFiles)
	raw, _ := os.ReadFile(src)
	for n := 0; n < len(raw); n++ {
		_, err := Walk(bytes.NewReader(raw[:n]), testMax, func(*FileEntry, io.Reader) error { return nil })
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("archive cut to %d of %d bytes: %v, want ErrCorrupt", n, len(raw), err)
		}
	}
	p := filepath.Join(t.TempDir(), "cut"+Ext)
	os.WriteFile(p, raw[:len(raw)-1], 0o600)
	_, err := Verify(p, testMax)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("Verify of a truncated file: %v, want an error naming %s and saying truncated", err, p)
	}
	// Trailing garbage is no better.
	if _, err := Walk(bytes.NewReader(append(bytes.Clone(raw), 0, 1, 2)), testMax, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("trailing garbage: %v, want ErrCorrupt", err)
	}
}

// entry is one tar entry of a hand-made archive.
type entry struct {
	hdr  tar.Header
	data string
}

// craft builds an archive by hand, manifest included, so that tests can
// put anything in it.
func craft(t testing.TB, m *Manifest, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zstd.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	if m != nil {
		data, _ := json.Marshal(m)
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: ManifestName, Size: int64(len(data)), Mode: 0o644})
		tw.Write(data)
	}
	for _, e := range entries {
		h := e.hdr
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Size == 0 && h.Typeflag == tar.TypeReg {
			h.Size = int64(len(e.data))
		}
		h.Mode = 0o644
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, e.data)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func hdrNamed(name string) tar.Header { return tar.Header{Name: name} }

func fileEntry(p, data string) FileEntry {
	sum := sha256.Sum256([]byte(data))
	return FileEntry{Path: p, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
}

func TestUnsafeEntriesAreRejected(t *testing.T) {
	good := fileEntry("2026-04-13/chat_a.md", "hi")
	tests := []struct {
		name    string
		m       *Manifest
		entries []entry
		want    error
	}{
		{"dot-dot in manifest", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{fileEntry("../evil", "x")}}, []entry{{tar.Header{Name: "../evil"}, "x"}}, ErrUnsafePath},
		{"absolute in manifest", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{fileEntry("/etc/evil", "x")}}, []entry{{tar.Header{Name: "/etc/evil"}, "x"}}, ErrUnsafePath},
		{"dot-dot entry", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{good}}, []entry{{tar.Header{Name: "a/../../evil"}, "hi"}}, ErrUnsafePath},
		{"absolute entry", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{good}}, []entry{{tar.Header{Name: "/tmp/evil"}, "hi"}}, ErrUnsafePath},
		{"symlink", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{good}}, []entry{{tar.Header{Name: good.Path, Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, ""}}, ErrUnsafePath},
		{"hard link", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{good}}, []entry{{tar.Header{Name: good.Path, Typeflag: tar.TypeLink, Linkname: "../../x"}, ""}}, ErrUnsafePath},
		{"folder", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{good}}, []entry{{tar.Header{Name: "2026-04-13", Typeflag: tar.TypeDir}, ""}}, ErrUnsafePath},
		{"device", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{good}}, []entry{{tar.Header{Name: good.Path, Typeflag: tar.TypeChar}, ""}}, ErrUnsafePath},
		{"second manifest", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{good}}, []entry{{tar.Header{Name: ManifestName}, "{}"}}, ErrUnsafePath},
		{"entry not in manifest", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{good}}, []entry{{tar.Header{Name: good.Path}, "hi"}, {tar.Header{Name: "2026-04-13/extra.md"}, "x"}}, ErrCorrupt},
		{"entry renamed", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{good}}, []entry{{tar.Header{Name: "2026-04-13/chat_b.md"}, "hi"}}, ErrCorrupt},
		{"content changed", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{good}}, []entry{{tar.Header{Name: good.Path}, "ho"}}, ErrCorrupt},
		{"missing file", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{good, fileEntry("2026-04-14/b.md", "b")}}, []entry{{tar.Header{Name: good.Path}, "hi"}}, ErrCorrupt},
		{"no manifest", nil, []entry{{tar.Header{Name: good.Path}, "hi"}}, ErrCorrupt},
		{"newer version", &Manifest{Version: 2, Week: "2026-W16", Files: []FileEntry{good}}, []entry{{tar.Header{Name: good.Path}, "hi"}}, ErrVersion},
		{"bad week", &Manifest{Version: 1, Week: "2026-W99", Files: []FileEntry{good}}, []entry{{tar.Header{Name: good.Path}, "hi"}}, ErrCorrupt},
		{"repeated path", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{good, good}}, []entry{{tar.Header{Name: good.Path}, "hi"}, {tar.Header{Name: good.Path}, "hi"}}, ErrCorrupt},
		{"file and folder", &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{fileEntry("a", "x"), fileEntry("a/b", "y")}}, []entry{{tar.Header{Name: "a"}, "x"}, {tar.Header{Name: "a/b"}, "y"}}, ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			src := filepath.Join(base, "w"+Ext)
			os.WriteFile(src, craft(t, tt.m, tt.entries), 0o600)
			dst := filepath.Join(base, "sub", "out")
			_, err := Extract(src, dst, ExtractOptions{MaxBytes: testMax})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Extract: %v, want %v", err, tt.want)
			}
			// Nothing may appear anywhere but the archive itself.
			if got := readTree(t, base); len(got) != 1 {
				t.Errorf("files left behind: %v", keys(got))
			}
		})
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// zeros is an endless reader of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestBombsAreRejected(t *testing.T) {
	const limit = 1 << 20
	const big = 64 << 20
	bigEntry := FileEntry{Path: "2026-04-13/big.md", Size: big, SHA256: strings.Repeat("0", 64)}
	// A manifest that admits the size.
	honest := func() []byte {
		var buf bytes.Buffer
		zw := zstd.NewWriterLevel(&buf, 1)
		tw := tar.NewWriter(zw)
		data, _ := json.Marshal(&Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{bigEntry}})
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: ManifestName, Size: int64(len(data))})
		tw.Write(data)
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: bigEntry.Path, Size: big})
		io.Copy(tw, io.LimitReader(zeros{}, big))
		tw.Close()
		zw.Close()
		return buf.Bytes()
	}()
	// A manifest that lies: it lists a small file, the entry is huge.
	liar := func() []byte {
		var buf bytes.Buffer
		zw := zstd.NewWriterLevel(&buf, 1)
		tw := tar.NewWriter(zw)
		small := fileEntry(bigEntry.Path, "x")
		data, _ := json.Marshal(&Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{small}})
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: ManifestName, Size: int64(len(data))})
		tw.Write(data)
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: bigEntry.Path, Size: big})
		io.Copy(tw, io.LimitReader(zeros{}, big))
		tw.Close()
		zw.Close()
		return buf.Bytes()
	}()
	// A valid archive whose tar stream goes on with zeros after its end.
	padded := func() []byte {
		var buf bytes.Buffer
		zw := zstd.NewWriterLevel(&buf, 1)
		tw := tar.NewWriter(zw)
		f := fileEntry("a.md", "x")
		data, _ := json.Marshal(&Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{f}})
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: ManifestName, Size: int64(len(data))})
		tw.Write(data)
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.Path, Size: 1})
		tw.Write([]byte("x"))
		tw.Flush()
		io.Copy(zw, io.LimitReader(zeros{}, big))
		zw.Close()
		return buf.Bytes()
	}()
	// A second zstd frame after the archive.
	trailing := func() []byte {
		m := craft(t, &Manifest{Version: 1, Week: "2026-W16", Files: []FileEntry{fileEntry("a.md", "x")}}, []entry{{tar.Header{Name: "a.md"}, "x"}})
		buf := bytes.NewBuffer(bytes.Clone(m))
		zw := zstd.NewWriterLevel(buf, 1)
		io.Copy(zw, io.LimitReader(zeros{}, big))
		zw.Close()
		return buf.Bytes()
	}()
	// A manifest entry far bigger than any manifest.
	hugeManifest := func() []byte {
		var buf bytes.Buffer
		zw := zstd.NewWriterLevel(&buf, 1)
		tw := tar.NewWriter(zw)
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: ManifestName, Size: MaxManifestBytes + 1})
		io.Copy(tw, io.LimitReader(zeros{}, MaxManifestBytes+1))
		tw.Close()
		zw.Close()
		return buf.Bytes()
	}()
	for _, tt := range []struct {
		name string
		data []byte
		want error
	}{
		{"honest", honest, ErrTooLarge},
		{"liar", liar, ErrCorrupt},
		{"padded", padded, ErrTooLarge},
		{"trailing frame", trailing, ErrCorrupt},
		{"huge manifest", hugeManifest, ErrTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.data) > big/100 {
				t.Fatalf("the bomb is %d bytes; it should compress far better", len(tt.data))
			}
			src := filepath.Join(t.TempDir(), "bomb"+Ext)
			os.WriteFile(src, tt.data, 0o600)
			dst := filepath.Join(filepath.Dir(src), "out")
			_, err := Extract(src, dst, ExtractOptions{MaxBytes: limit})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Extract: %v, want %v", err, tt.want)
			}
			if size := treeSize(filepath.Dir(src)); size > int64(len(tt.data))+limit {
				t.Errorf("the bomb wrote %d bytes to disk", size)
			}
		})
	}
}

func TestValidPath(t *testing.T) {
	for _, tt := range []struct {
		p    string
		want bool
	}{
		{"2026-04-13/chat_s1.md", true},
		{"2026-04-13/chat_会话一.md", true},
		{"a", true},
		{"", false},
		{".", false},
		{"..", false},
		{"../x", false},
		{"a/../b", false},
		{"a/./b", false},
		{"a//b", false},
		{"/a", false},
		{"a/", false},
		{`a\b`, false},
		{"c:x", false},
		{"a\x00b", false},
		{"a\nb", false},
		{"\xff", false},
		{ManifestName, false},
		{strings.Repeat("a", MaxPathBytes+1), false},
	} {
		if got := ValidPath(tt.p); got != tt.want {
			t.Errorf("ValidPath(%q) = %v, want %v", tt.p, got, tt.want)
		}
	}
}

func TestCache(t *testing.T) {
	src, info := pack(t, weekFiles)
	other, otherInfo := pack(t, map[string]string{"2026-04-20/chat_x.md": strings.Repeat("x", 4000)})
	dir := filepath.Join(t.TempDir(), "cache")
	c := NewCache(dir, CacheOptions{MaxBytes: info.Manifest.Size() + 100})
	for range 3 {
		for p, want := range weekFiles {
			got, err := c.ReadFile(src, info.SHA256, p)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("%s: got %q", p, got)
			}
		}
	}
	if n := c.Extractions(); n != 1 {
		t.Errorf("%d extractions, want 1", n)
	}
	if _, err := c.ReadFile(src, info.SHA256, "2026-04-13/nope.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := c.ReadFile(src, info.SHA256, "../../etc/passwd"); !errors.Is(err, ErrUnsafePath) {
		t.Errorf("escaping path: %v", err)
	}
	// The wrong checksum: nothing is cached under it.
	if _, err := c.ReadFile(src, otherInfo.SHA256, "2026-04-13/chat_s1.md"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("wrong checksum: %v", err)
	}
	if isDir(filepath.Join(dir, otherInfo.SHA256)) {
		t.Errorf("a week was cached under a checksum it does not have")
	}
	// Reading another week pushes the first one out: the cache holds
	// about one week.
	if _, err := c.ReadFile(other, otherInfo.SHA256, "2026-04-20/chat_x.md"); err != nil {
		t.Fatal(err)
	}
	if isDir(filepath.Join(dir, info.SHA256)) {
		t.Errorf("least recently used week was not evicted")
	}
	// A second cache on the same folder (a restart) finds what is there.
	c2 := NewCache(dir, CacheOptions{})
	if _, err := c2.ReadFile(other, otherInfo.SHA256, "2026-04-20/chat_x.md"); err != nil || c2.Extractions() != 0 {
		t.Errorf("restart: %v, %d extractions", err, c2.Extractions())
	}
	// Evicted behind its back, it unpacks the week again.
	c2.Clear()
	if _, err := c.ReadFile(other, otherInfo.SHA256, "2026-04-20/chat_x.md"); err != nil {
		t.Errorf("after eviction by another cache: %v", err)
	}
	assertNoTemp(t, dir)
}

func TestCacheTTL(t *testing.T) {
	src, info := pack(t, weekFiles)
	other, otherInfo := pack(t, map[string]string{"2026-04-20/chat_x.md": "x"})
	dir := t.TempDir()
	c := NewCache(dir, CacheOptions{TTL: 1}) // 1ns: anything not in use expires
	if _, err := c.ReadFile(src, info.SHA256, "2026-04-13/chat_s1.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadFile(other, otherInfo.SHA256, "2026-04-20/chat_x.md"); err != nil {
		t.Fatal(err)
	}
	if isDir(filepath.Join(dir, info.SHA256)) || !isDir(filepath.Join(dir, otherInfo.SHA256)) {
		t.Errorf("expired week kept, or the week in use dropped")
	}
}

func TestCacheConcurrentFirstReads(t *testing.T) {
	src, info := pack(t, weekFiles)
	c := NewCache(t.TempDir(), CacheOptions{})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Go(func() {
			for p, want := range weekFiles {
				got, err := c.ReadFile(src, info.SHA256, p)
				if err != nil || string(got) != want {
					t.Errorf("%s: %q, %v", p, got, err)
				}
			}
		})
	}
	wg.Wait()
	if n := c.Extractions(); n != 1 {
		t.Errorf("%d extractions, want 1", n)
	}
}
