package store

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A stage's run in a file of its own. In a home the
// run's batches are not buckets of the store but segments appended to a
// file beside it, huimem.db.run-<stage id>. The run's records are read
// only by the stage's own transactions and by its merge, never by a
// reader of the store, and a run is never resumed after a crash, only
// discarded, so nothing needs them inside the store's transactions:
//
//   - a batch appends its records to the file, sorted, with one write
//     and one fsync before its transaction commits, instead of writing a
//     bucket through the store's map;
//   - a lookup reads one block of a segment with one pread;
//   - the merge reads every segment front to back through a small buffer
//     of its own, across all of its transactions, instead of seeking a
//     cursor in every batch's bucket in each of them and mapping a page of
//     each: at 300 MB of JSONL, 770 batches, that held up to 150 MiB of
//     the store's map and took 44 s;
//   - removing the run is one unlink, not a walk over every page.
//
// The file is a sequence of segments, one per batch:
//
//	"HRUN" | length of the records (8 bytes, big endian) | CRC-32C of them (4) | records
//	record: uvarint len(key) | key | uvarint 0 (a deletion) or len(value)+1 | value
//
// where a key is the bucket's tag and the key (as in the run's buckets),
// and the records are in key order. A segment cut short or damaged by a
// crash ends the file for whoever walks it: its batch never committed.
// The store's own run buckets (stagerun.go) remain for a store behind a
// [KV], whose next writer may be another machine.

// runFileMagic starts each segment of a run file.
const runFileMagic = "HRUN"

// runHeaderLen is the length of a segment's header.
const runHeaderLen = len(runFileMagic) + 8 + 4

// runBlockBytes is how many bytes of records a block of a segment's
// index covers: a lookup reads one block. The index keeps a block's first
// key, so its memory is about 1/300 of the run's size.
const runBlockBytes = 16 << 10

// runReadBuffer is the read buffer of each segment during a merge.
const runReadBuffer = 8 << 10

var runCRC = crc32.MakeTable(crc32.Castagnoli)

// runFilePrefix is the name of a store's run files, before the stage id.
func runFilePrefix(storePath string) string { return storePath + ".run-" }

// runFile is a stage's run file, open for appending and reading.
type runFile struct {
	path string
	f    *os.File
	size int64  // bytes of whole segments written
	buf  []byte // a lookup's block
}

// runSegment is one batch's segment of a run file.
type runSegment struct {
	off, n int64 // the records: offset in the file and length
	blocks []runBlock
}

// runBlock is an entry of a segment's index.
type runBlock struct {
	first []byte // the block's first key
	off   int64  // its offset in the file
}

// createRunFile creates (or empties) the run file at path.
func createRunFile(path string) (*runFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating the stage's run: %w", err)
	}
	return &runFile{path: path, f: f}, nil
}

// segEncoder builds a segment's records and its index.
type segEncoder struct {
	data   []byte // header, then records
	blocks []runBlock
	start  int // of the current block, in data
}

func newSegEncoder(sizeHint int) *segEncoder {
	return &segEncoder{data: make([]byte, runHeaderLen, runHeaderLen+sizeHint)}
}

// add appends a record and returns its offset in the segment (header
// included); keys must come in order. val nil is a deletion.
func (e *segEncoder) add(key, val []byte) (off int) {
	off = len(e.data)
	if len(e.blocks) == 0 || len(e.data)-e.start >= runBlockBytes {
		e.start = len(e.data)
		e.blocks = append(e.blocks, runBlock{first: bytes.Clone(key), off: int64(len(e.data))})
	}
	e.data = binary.AppendUvarint(e.data, uint64(len(key)))
	e.data = append(e.data, key...)
	if val == nil {
		e.data = binary.AppendUvarint(e.data, 0)
		return off
	}
	e.data = binary.AppendUvarint(e.data, uint64(len(val))+1)
	e.data = append(e.data, val...)
	return off
}

// append writes the encoded segment at the end of the file and syncs it:
// the batch's transaction commits after it, and whoever discards the
// stage finds the batch's records here.
func (rf *runFile) append(e *segEncoder) (*runSegment, error) {
	recs := e.data[runHeaderLen:]
	copy(e.data, runFileMagic)
	binary.BigEndian.PutUint64(e.data[len(runFileMagic):], uint64(len(recs)))
	binary.BigEndian.PutUint32(e.data[len(runFileMagic)+8:], crc32.Checksum(recs, runCRC))
	if _, err := rf.f.WriteAt(e.data, rf.size); err != nil {
		return nil, fmt.Errorf("writing the stage's run %s: %w", rf.path, err)
	}
	if err := rf.f.Sync(); err != nil {
		return nil, fmt.Errorf("syncing the stage's run %s: %w", rf.path, err)
	}
	seg := &runSegment{off: rf.size + int64(runHeaderLen), n: int64(len(recs)), blocks: e.blocks}
	for i := range seg.blocks {
		seg.blocks[i].off += rf.size
	}
	rf.size += int64(len(e.data))
	return seg, nil
}

// get looks probe up in segment seg: found is false when the segment
// does not hold it; a found nil value is a deletion. The value is the
// caller's.
func (rf *runFile) get(seg *runSegment, probe []byte) (val []byte, found bool, err error) {
	i := sort.Search(len(seg.blocks), func(i int) bool { return bytes.Compare(seg.blocks[i].first, probe) > 0 }) - 1
	if i < 0 {
		return nil, false, nil
	}
	start, end := seg.blocks[i].off, seg.off+seg.n
	if i+1 < len(seg.blocks) {
		end = seg.blocks[i+1].off
	}
	if int64(cap(rf.buf)) < end-start {
		rf.buf = make([]byte, end-start)
	}
	block := rf.buf[:end-start]
	if _, err := rf.f.ReadAt(block, start); err != nil {
		return nil, false, fmt.Errorf("reading the stage's run %s at byte %d: %w", rf.path, start, err)
	}
	for len(block) > 0 {
		k, v, rest, err := decodeRunRecord(block)
		if err != nil {
			return nil, false, fmt.Errorf("reading the stage's run %s near byte %d: %w", rf.path, end-int64(len(block)), err)
		}
		switch c := bytes.Compare(k, probe); {
		case c == 0:
			if v == nil {
				return nil, true, nil
			}
			return bytes.Clone(v), true, nil
		case c > 0:
			return nil, false, nil
		}
		block = rest
	}
	return nil, false, nil
}

// errRunRecord is a record that does not decode.
var errRunRecord = errors.New("a record is cut short")

// decodeRunRecord decodes the record at the start of b: its key, its
// value (nil: a deletion) and what follows it. Key and value point into b.
func decodeRunRecord(b []byte) (key, val, rest []byte, err error) {
	kl, n := binary.Uvarint(b)
	if n <= 0 || uint64(len(b)-n) < kl {
		return nil, nil, nil, errRunRecord
	}
	key, b = b[n:n+int(kl)], b[n+int(kl):]
	vl, n := binary.Uvarint(b)
	if n <= 0 || (vl > 0 && uint64(len(b)-n) < vl-1) {
		return nil, nil, nil, errRunRecord
	}
	b = b[n:]
	if vl == 0 {
		return key, nil, b, nil
	}
	return key, b[:vl-1], b[vl-1:], nil
}

// segReader reads one segment's records in order, through a buffer of
// its own.
type segReader struct {
	r        *bufio.Reader
	seq      uint64
	key, val []byte // the current record; val nil: a deletion
	del      bool
	err      error
}

func (rf *runFile) reader(seg *runSegment, seq uint64) *segReader {
	return &segReader{r: bufio.NewReaderSize(io.NewSectionReader(rf.f, seg.off, seg.n), runReadBuffer), seq: seq}
}

// next reads the next record; false at the end of the segment or on an
// error (in sr.err).
func (sr *segReader) next() bool {
	kl, err := binary.ReadUvarint(sr.r)
	if err == io.EOF {
		return false
	}
	if err == nil {
		sr.key = grow(sr.key, int(kl))
		_, err = io.ReadFull(sr.r, sr.key)
	}
	var vl uint64
	if err == nil {
		vl, err = binary.ReadUvarint(sr.r)
	}
	if err == nil && vl > 0 {
		sr.val = grow(sr.val, int(vl-1))
		_, err = io.ReadFull(sr.r, sr.val)
	}
	if err != nil {
		sr.err = fmt.Errorf("%w: %w", errRunRecord, err)
		return false
	}
	sr.del = vl == 0
	return true
}

// grow returns b resized to n bytes, reusing its memory when it can.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// close closes the file.
func (rf *runFile) close() error { return rf.f.Close() }

// walkRunFile calls fn with each record of the whole segments of the run
// file at path, in order, from byte offset from, until the segments it
// walked held limit records or more. It returns the offset of the first
// segment not walked, and done when no whole segment follows it. A
// missing file has nothing to walk. A segment cut short or damaged ends
// the file: its batch never committed.
func walkRunFile(path string, from int64, limit int, fn func(key, val []byte) error) (next int64, done bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return from, true, nil
	}
	if err != nil {
		return from, false, fmt.Errorf("opening the stage's run: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return from, false, fmt.Errorf("opening the stage's run: %w", err)
	}
	head := make([]byte, runHeaderLen)
	walked := 0
	for off := from; ; {
		if walked >= limit {
			return off, false, nil
		}
		if _, err := f.ReadAt(head, off); err != nil {
			return off, true, nil // the end, or a header cut short
		}
		n := binary.BigEndian.Uint64(head[len(runFileMagic):])
		if string(head[:len(runFileMagic)]) != runFileMagic || n > uint64(fi.Size()-off-int64(runHeaderLen)) {
			return off, true, nil // not a segment, or one cut short
		}
		recs := make([]byte, n)
		if _, err := f.ReadAt(recs, off+int64(runHeaderLen)); err != nil {
			return off, true, nil
		}
		if crc32.Checksum(recs, runCRC) != binary.BigEndian.Uint32(head[len(runFileMagic)+8:]) {
			return off, true, nil
		}
		for b := recs; len(b) > 0; walked++ {
			k, v, rest, err := decodeRunRecord(b)
			if err != nil {
				return off, false, fmt.Errorf("reading the stage's run %s near byte %d: %w", path, off+int64(runHeaderLen)+int64(n)-int64(len(b)), err)
			}
			if err := fn(k, v); err != nil {
				return off, false, err
			}
			b = rest
		}
		off += int64(runHeaderLen) + int64(n)
	}
}

// runFileStages returns the names of the run files (and of their key
// indexes' files) beside the store at storePath, after runFilePrefix: a
// stage id, followed by runKeysSuffix and more for a key index's.
func runFileStages(storePath string) ([]string, error) {
	prefix := filepath.Base(runFilePrefix(storePath))
	entries, err := os.ReadDir(filepath.Dir(storePath))
	if err != nil {
		return nil, fmt.Errorf("listing the stages' runs: %w", err)
	}
	var ids []string
	for _, e := range entries {
		if id, ok := strings.CutPrefix(e.Name(), prefix); ok && id != "" && !e.IsDir() {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func (sr *segReader) current() ([]byte, uint64) { return sr.key, sr.seq }
