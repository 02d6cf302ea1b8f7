package store

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
)

// The key index of a run file's older batches. A
// lookup in a stage's run must not read the file for a key the run does
// not hold, and nearly every lookup of a bulk ingest is for such a key
// (a new message, chunk or vector). Bloom filters kept that free, but at
// 2.5 bytes of memory per record (a batch's filter and its group's) they
// were the one part of an ingest's memory that grew with the file: 14 MB
// of a 29 MB live heap at the end of a 300 MB export.
//
// So only the newest group of batches (runGroupSpan of them) keeps its
// filters. Each batch's index entries wait, sorted, in a scratch file
// (runKeysFreshSuffix); once the group is full, a fold merges them, from
// a small buffer each, with the index into a new index, a file beside the
// run, and the group's filters go. The index lists, for every record of
// the folded batches, a 64-bit hash of its key and the record's offset in
// the run file, sorted by hash (and newest record first), in blocks of
// runKeysBlock entries; memory holds each block's first hash (8 bytes per
// 256 records). A lookup that the newest group's filters do not answer
// reads the one block that may hold the key's hash, and, for a hash it
// finds, the record itself. That read is a system call, some 2.5 µs here,
// and a bulk ingest makes about three lookups a message, so a Bloom
// filter of a fixed size (runKeysFilterBits) stands in front of the
// index: it passes over some 98% of the keys the index does not hold at
// 75 MB of JSONL (1.2 million records folded), three quarters at 300 MB
// (5.5 million), and fewer as the file grows, while its memory stays the
// same. A fold copies the whole index, 16 bytes per record folded so far,
// a buffer at a time: a 300 MB export's run folds 24 times, in 2.9 s.
//
// The index is the process's own: a run is never resumed after a crash,
// only discarded, so nothing is synced, and [Store.RemoveRunFiles]
// removes an index a crash left behind.
//
//	entry: hash (8 bytes, big endian) | offset of the record in the run file (8)

// runKeyLen is the length of an index entry.
const runKeyLen = 16

// runKeysBlock is how many entries a block of the index holds: a lookup
// reads one block (4 KiB).
const runKeysBlock = 256

// runKeysBuffer is the read and write buffer of a fold.
const runKeysBuffer = 64 << 10

// runRecordRead is how many bytes a lookup reads at a record's offset
// first: the records the run's lookups find are short.
const runRecordRead = 512

// runKeysFilterBits is the size of the filter in front of the index
// (2 MiB), a power of two, and runKeysFilterHashes its number of hashes:
// two, which keeps false positives low both at some 12 bits a record
// (about 2%) and at 3 (about 25%).
const (
	runKeysFilterBits   = 16 << 20
	runKeysFilterHashes = 2
)

// runKeysSuffix ends the name of a run's index, after the run file's;
// runKeysFreshSuffix the name of its scratch file after the index's.
const (
	runKeysSuffix      = ".keys"
	runKeysFreshSuffix = ".fresh"
)

// runFreshBuffer is the read buffer of each batch's entries in a fold.
const runFreshBuffer = 4 << 10

// runKeyEntry is an index entry: the hash of a record's key, and where the
// record is in the run file.
type runKeyEntry struct{ hash, off uint64 }

// compareRunKeys orders entries by hash, then newest (furthest in the
// file) first.
func compareRunKeys(a, b runKeyEntry) int {
	if c := cmp.Compare(a.hash, b.hash); c != 0 {
		return c
	}
	return cmp.Compare(b.off, a.off)
}

// runKeys is a run file's key index.
type runKeys struct {
	path   string
	f      *os.File // nil until the first fold
	n      int64    // entries
	firsts []uint64 // the first hash of each block
	filter []uint64 // runKeysFilterBits bits, set from the first fold
	// The scratch file of the entries waiting for the next fold, and
	// where each batch's entries, sorted, start in it.
	fresh     *os.File
	freshRuns []int64
	freshSize int64
	seed      maphash.Seed
	block     []byte
	rec       []byte
}

func newRunKeys(path string) *runKeys {
	return &runKeys{path: path, seed: maphash.MakeSeed()}
}

// hash is the index's hash of a run key.
func (k *runKeys) hash(probe []byte) uint64 { return maphash.Bytes(k.seed, probe) }

// filterBit returns the word and the bit of the filter that hash h sets
// for its i-th hash (double hashing on h's halves).
func filterBit(h uint64, i int) (word int, bit uint64) {
	pos := (h + uint64(i)*(h>>32|1)) & (runKeysFilterBits - 1)
	return int(pos / 64), 1 << (pos % 64)
}

// mayHold reports whether the index may hold a record of hash h.
func (k *runKeys) mayHold(h uint64) bool {
	if k.filter == nil {
		return false
	}
	for i := range runKeysFilterHashes {
		if w, b := filterBit(h, i); k.filter[w]&b == 0 {
			return false
		}
	}
	return true
}

// add writes a batch's entries, all of records newer than any the index
// holds, to the scratch file, to wait for the next fold. It sorts them.
func (k *runKeys) add(entries []runKeyEntry) error {
	if k.fresh == nil {
		f, err := os.OpenFile(k.path+runKeysFreshSuffix, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return fmt.Errorf("writing the key index of the stage's run: %w", err)
		}
		k.fresh = f
	}
	sortRunKeys(entries)
	buf := make([]byte, 0, len(entries)*runKeyLen)
	for _, e := range entries {
		buf = binary.BigEndian.AppendUint64(buf, e.hash)
		buf = binary.BigEndian.AppendUint64(buf, e.off)
	}
	if _, err := k.fresh.WriteAt(buf, k.freshSize); err != nil {
		return fmt.Errorf("writing the key index of the stage's run: %w", err)
	}
	k.freshRuns = append(k.freshRuns, k.freshSize)
	k.freshSize += int64(len(buf))
	return nil
}

// pending returns how many entries wait for the next fold.
func (k *runKeys) pending() int64 { return k.freshSize / runKeyLen }

// entryReader reads sorted index entries through a buffer.
type entryReader struct {
	r   *bufio.Reader
	cur runKeyEntry
	buf [runKeyLen]byte
}

func newEntryReader(f *os.File, off, n int64, size int) *entryReader {
	return &entryReader{r: bufio.NewReaderSize(io.NewSectionReader(f, off, n), size)}
}

// next reads the next entry into cur; false at the end.
func (er *entryReader) next() (bool, error) {
	if _, err := io.ReadFull(er.r, er.buf[:]); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, err
	}
	er.cur = runKeyEntry{binary.BigEndian.Uint64(er.buf[:8]), binary.BigEndian.Uint64(er.buf[8:])}
	return true, nil
}

// freshHeap orders the batches' entry readers by their current entry.
type freshHeap []*entryReader

func (h freshHeap) Len() int           { return len(h) }
func (h freshHeap) Less(i, j int) bool { return compareRunKeys(h[i].cur, h[j].cur) < 0 }
func (h freshHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *freshHeap) Push(x any)        { *h = append(*h, x.(*entryReader)) }
func (h *freshHeap) Pop() any {
	old := *h
	er := old[len(old)-1]
	*h = old[:len(old)-1]
	return er
}

// fold merges the entries waiting in the scratch file into the index: a
// new file, written beside the old one, that takes its place.
func (k *runKeys) fold() (err error) {
	var fresh freshHeap
	for i, start := range k.freshRuns {
		end := k.freshSize
		if i+1 < len(k.freshRuns) {
			end = k.freshRuns[i+1]
		}
		er := newEntryReader(k.fresh, start, end-start, runFreshBuffer)
		ok, err := er.next()
		if err != nil {
			return fmt.Errorf("reading the key index's scratch file: %w", err)
		}
		if ok {
			fresh = append(fresh, er)
		}
	}
	heap.Init(&fresh)
	total := k.n + k.pending()
	tmp := k.path + ".new"
	nf, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("writing the key index of the stage's run: %w", err)
	}
	defer func() {
		if err != nil {
			nf.Close()
			os.Remove(tmp)
		}
	}()
	w := bufio.NewWriterSize(nf, runKeysBuffer)
	firsts := make([]uint64, 0, total/runKeysBlock+1)
	var n int64
	if k.filter == nil {
		k.filter = make([]uint64, runKeysFilterBits/64)
	}
	// put writes whole entries, noting the first hash of each block.
	put := func(b []byte) error {
		m := int64(len(b) / runKeyLen)
		for p := (n + runKeysBlock - 1) / runKeysBlock * runKeysBlock; p < n+m; p += runKeysBlock {
			firsts = append(firsts, binary.BigEndian.Uint64(b[(p-n)*runKeyLen:]))
		}
		n += m
		_, err := w.Write(b)
		return err
	}
	// The old entries, older than any fresh one, are copied a buffer at a
	// time up to the next fresh entry's hash: a fold copies the whole
	// index (one entry at a time, the folds took 4.3 s of a 300 MB
	// ingest, against 2.9 s).
	chunk := make([]byte, runKeysBuffer)
	var old []byte // the old entries read and not yet written
	oldOff, oldEnd := int64(0), k.n*runKeyLen
	var buf [runKeyLen]byte
	for err == nil {
		if len(old) == 0 && oldOff < oldEnd {
			m := min(int64(len(chunk)), oldEnd-oldOff)
			if _, err = k.f.ReadAt(chunk[:m], oldOff); err != nil {
				break
			}
			old, oldOff = chunk[:m], oldOff+m
		}
		if len(fresh) == 0 {
			if len(old) == 0 {
				break
			}
			err, old = put(old), nil
			continue
		}
		// A fresh entry is newer: before an old one of the same hash.
		h := fresh[0].cur.hash
		if i := sort.Search(len(old)/runKeyLen, func(i int) bool { return binary.BigEndian.Uint64(old[i*runKeyLen:]) >= h }); i > 0 {
			err, old = put(old[:i*runKeyLen]), old[i*runKeyLen:]
			continue
		}
		for i := range runKeysFilterHashes {
			w, b := filterBit(h, i)
			k.filter[w] |= b
		}
		binary.BigEndian.PutUint64(buf[:8], h)
		binary.BigEndian.PutUint64(buf[8:], fresh[0].cur.off)
		if err = put(buf[:]); err != nil {
			break
		}
		var more bool
		if more, err = fresh[0].next(); more {
			heap.Fix(&fresh, 0)
		} else {
			heap.Pop(&fresh)
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fmt.Errorf("writing the key index of the stage's run: %w", err)
	}
	if err = os.Rename(tmp, k.path); err != nil {
		return fmt.Errorf("writing the key index of the stage's run: %w", err)
	}
	if k.f != nil {
		k.f.Close() // the old index, replaced
	}
	k.f, k.n, k.firsts = nf, n, firsts
	k.freshRuns, k.freshSize = k.freshRuns[:0], 0
	return nil
}

// get looks probe (of hash h) up among the index's records in run file
// rf: found is false when none holds it; a found nil value is a deletion.
func (k *runKeys) get(rf *runFile, h uint64, probe []byte) (val []byte, found bool, err error) {
	if k.n == 0 || !k.mayHold(h) {
		return nil, false, nil
	}
	if k.block == nil {
		k.block = make([]byte, runKeysBlock*runKeyLen)
	}
	// The block before the first that starts at h or after: entries of
	// hash h may end it.
	b := max(0, sort.Search(len(k.firsts), func(i int) bool { return k.firsts[i] >= h })-1)
	for ; b < len(k.firsts); b++ {
		cnt := int(min(runKeysBlock, k.n-int64(b)*runKeysBlock))
		block := k.block[:cnt*runKeyLen]
		if _, err := k.f.ReadAt(block, int64(b)*runKeysBlock*runKeyLen); err != nil {
			return nil, false, fmt.Errorf("reading the key index of the stage's run at block %d: %w", b, err)
		}
		at := func(i int) uint64 { return binary.BigEndian.Uint64(block[i*runKeyLen:]) }
		for i := sort.Search(cnt, func(i int) bool { return at(i) >= h }); i < cnt; i++ {
			if at(i) != h {
				return nil, false, nil
			}
			off := binary.BigEndian.Uint64(block[i*runKeyLen+8:])
			v, ok, err := k.record(rf, int64(off), probe)
			if err != nil || ok {
				return v, ok, err
			}
		}
	}
	return nil, false, nil
}

// record reads the record at offset off of run file rf: found is true
// when its key is probe, with its value (nil: a deletion), the caller's.
func (k *runKeys) record(rf *runFile, off int64, probe []byte) (val []byte, found bool, err error) {
	n := min(int64(runRecordRead), rf.size-off)
	if n <= 0 {
		return nil, false, fmt.Errorf("the key index of the stage's run points past its end (byte %d)", off)
	}
	k.rec = grow(k.rec, int(n))
	if _, err := rf.f.ReadAt(k.rec, off); err != nil {
		return nil, false, fmt.Errorf("reading the stage's run %s at byte %d: %w", rf.path, off, err)
	}
	kl, kn := binary.Uvarint(k.rec)
	if kn <= 0 || int64(kn)+int64(kl) > n {
		return nil, false, fmt.Errorf("reading the stage's run %s at byte %d: %w", rf.path, off, errRunRecord)
	}
	if !bytes.Equal(k.rec[kn:kn+int(kl)], probe) {
		return nil, false, nil
	}
	rest := k.rec[kn+int(kl):]
	vl, vn := binary.Uvarint(rest)
	if vn <= 0 {
		return nil, false, fmt.Errorf("reading the stage's run %s at byte %d: %w", rf.path, off, errRunRecord)
	}
	if vl == 0 {
		return nil, true, nil
	}
	val = make([]byte, vl-1)
	if have := copy(val, rest[vn:]); uint64(have) < vl-1 {
		at := off + int64(kn) + int64(kl) + int64(vn) + int64(have)
		if _, err := rf.f.ReadAt(val[have:], at); err != nil {
			return nil, false, fmt.Errorf("reading the stage's run %s at byte %d: %w", rf.path, at, err)
		}
	}
	return val, true, nil
}

// remove closes and removes the index and its scratch file.
func (k *runKeys) remove() error {
	for _, f := range []*os.File{k.f, k.fresh} {
		if f != nil {
			f.Close()
		}
	}
	k.f, k.fresh = nil, nil
	k.n, k.firsts, k.filter, k.block, k.rec = 0, nil, nil, nil, nil
	k.freshRuns, k.freshSize = nil, 0
	for _, path := range []string{k.path, k.path + runKeysFreshSuffix} {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing the key index of the stage's run: %w", err)
		}
	}
	return nil
}

// sortRunKeys sorts entries by compareRunKeys.
func sortRunKeys(entries []runKeyEntry) { slices.SortFunc(entries, compareRunKeys) }
