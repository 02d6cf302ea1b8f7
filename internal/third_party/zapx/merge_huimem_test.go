package zap

// HuiMemory's tests of its patch (PATCH.md).

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	index "github.com/blevesearch/bleve_index_api"
	seg "github.com/blevesearch/scorch_segment_api/v2"
)

// storedSegment persists a segment of n documents, each with about size
// bytes of a stored field of few distinct terms, to path and opens it.
func storedSegment(t *testing.T, path string, n, size int) seg.Segment {
	t.Helper()
	docs := make([]index.Document, n)
	rng := rand.New(rand.NewPCG(1, 2))
	raw := make([]byte, size/2)
	for i := range docs {
		id := fmt.Sprintf("doc%06d", i)
		for j := range raw {
			raw[j] = byte(rng.Uint32())
		}
		// Stored, not indexed, and not compressible: the stored
		// documents are most of the file.
		body := &stubField{name: "body", value: []byte(hex.EncodeToString(raw)), encodedType: 't', options: index.StoreField}
		docs[i] = newStubDocument(id, []*stubField{
			newStubFieldSplitString("_id", nil, id, true, false, false),
			body,
		}, "_all")
	}
	sb, _, err := zapPlugin.newWithChunkMode(docs, DefaultChunkMode, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := PersistSegmentBase(sb.(*SegmentBase), path); err != nil {
		t.Fatal(err)
	}
	s, err := zapPlugin.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestCopyStoredDocsInChunks checks that a merge writing the stored
// documents a chunk at a time, whatever the chunk's size, writes the same
// stored documents as one that writes them in one go, and a segment the
// same as its source. (The rest of a merged file is not the same from
// one merge to the next, patched or not: the footer and the fields'
// index vary.)
func TestCopyStoredDocsInChunks(t *testing.T) {
	dir := t.TempDir()
	src := storedSegment(t, filepath.Join(dir, "src.zap"), 500, 1000)
	defer func(old int) { copyStoredChunk = old }(copyStoredChunk)
	// stored returns the stored documents and their index in the
	// segment at path, and compares the segment with src.
	stored := func(path string) []byte {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := zapPlugin.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if diff := compareSegments(src.(*Segment), s.(*Segment)); diff != "" {
			t.Errorf("%s differs from its source: %s", path, diff)
		}
		sb := &s.(*Segment).SegmentBase
		return data[:sb.storedIndexOffset+8*sb.numDocs]
	}
	var want []byte
	for _, chunk := range []int{1 << 30, 1 << 20, 4096, 1000, 7} {
		copyStoredChunk = chunk
		path := filepath.Join(dir, "merged-"+strconv.Itoa(chunk)+".zap")
		if _, _, err := zapPlugin.Merge([]seg.Segment{src}, []*roaring.Bitmap{nil}, path, nil, nil); err != nil {
			t.Fatal(err)
		}
		got := stored(path)
		if want == nil {
			want = got
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("chunks of %d bytes: the stored documents differ from those written in one go", chunk)
		}
	}
	if len(want) < 500*1000 {
		t.Errorf("the stored documents take %d bytes, want at least 500,000: the test proves little", len(want))
	}
}

// TestCopyStoredDocsLetsPagesGo checks that a merge leaves few of its
// source's stored documents mapped in this process: it lets their pages
// go as it writes them.
func TestCopyStoredDocsLetsPagesGo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the pages are let go on Linux only")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "src.zap")
	src := storedSegment(t, path, 8000, 6000) // 48 MB of stored documents
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := zapPlugin.Merge([]seg.Segment{src}, []*roaring.Bitmap{nil}, filepath.Join(dir, "merged.zap"), nil, nil); err != nil {
		t.Fatal(err)
	}
	rss := mappedRSS(t, path)
	t.Logf("source file %d bytes, %d bytes of it mapped after the merge", st.Size(), rss)
	if rss > st.Size()/4 {
		t.Errorf("after the merge %d bytes of the %d-byte source are mapped, want at most a quarter", rss, st.Size())
	}
}

// mappedRSS returns how many bytes of the file at path this process has
// mapped and resident, from /proc/self/smaps.
func mappedRSS(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var total int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":"):
			in = len(fields) == 6 && fields[5] == path
		case in && len(fields) >= 2 && fields[0] == "Rss:":
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			total += kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}

// TestMergedSegmentMapsLittlePerRead checks that reading a few bytes
// here and there of a merged segment's dictionaries and postings maps
// little of it: the merge writes them DefaultFileMergerBufferSize bytes
// at a time, and Linux caches a write in folios as large as the write
// and maps a whole folio at a fault. Written 1 MiB at a time, a read
// every 256 KiB mapped all of the file.
func TestMergedSegmentMapsLittlePerRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the map's resident pages are read from /proc on Linux only")
	}
	dir := t.TempDir()
	src := storedSegment(t, filepath.Join(dir, "src.zap"), 200000, 2)
	path := filepath.Join(dir, "merged.zap")
	if _, _, err := zapPlugin.Merge([]seg.Segment{src}, []*roaring.Bitmap{nil}, path, nil, nil); err != nil {
		t.Fatal(err)
	}
	s, err := zapPlugin.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sb := &s.(*Segment).SegmentBase
	// Past the stored documents, which a merge copies in larger writes
	// and lets go as it copies them (copyStoredDocs).
	rest := sb.mem[sb.storedIndexOffset+8*sb.numDocs:]
	const step = 256 << 10
	var sum byte
	for i := 0; i < len(rest); i += step {
		sum += rest[i]
	}
	rss := mappedRSS(t, path)
	t.Logf("read %d bytes %d KiB apart (sum %d): %d of the file's %d bytes mapped", (len(rest)+step-1)/step, step>>10, sum, rss, len(sb.mem))
	if len(rest) < 4*step {
		t.Fatalf("the dictionaries and postings take %d bytes, want at least %d: the test proves little", len(rest), 4*step)
	}
	if rss > int64(len(rest))/2 {
		t.Errorf("%d bytes of the merged file are mapped after reading %d bytes of it, want at most half of its %d bytes of dictionaries and postings", rss, (len(rest)+step-1)/step, len(rest))
	}
}
