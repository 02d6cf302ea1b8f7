package archive

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"

	"github.com/DataDog/zstd"
)

// Reader reads a week archive as a stream, checking it as it goes: the
// manifest first, then each file in turn. A file's content is returned by
// [Reader.Read]; its end is reported (io.EOF) only once its size and
// sha256 matched the manifest, so a caller that reads each file to the end
// never takes a damaged file for a good one. Entry names are checked with
// [ValidPath] before they are returned, and the decompressed size is
// bounded, so that a hostile archive can neither escape the folder it is
// extracted into nor fill the disk or memory.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	src   *hashReader
	fc    *frameChecker
	zr    io.ReadCloser
	lim   *limitReader
	tr    *tar.Reader
	m     *Manifest
	next  int // index in m.Files of the next entry
	cur   *FileEntry
	h     hash.Hash
	n     int64 // bytes of cur read so far
	done  bool
	err   error
	total int64 // compressed bytes, once done
}

// NewReader starts reading the archive r. maxBytes bounds the week's
// decompressed size (the sum of its files); archives that claim or hold
// more fail with [ErrTooLarge]. It reads and checks the manifest. Close
// must be called to free the decompressor.
func NewReader(r io.Reader, maxBytes int64) (*Reader, error) {
	src := &hashReader{r: r, h: sha256.New()}
	fc := &frameChecker{r: src}
	zr := zstd.NewReader(fc)
	lim := &limitReader{r: zr, n: MaxManifestBytes + 1<<20}
	ar := &Reader{src: src, fc: fc, zr: zr, lim: lim, tr: tar.NewReader(lim)}
	if err := ar.readManifest(maxBytes); err != nil {
		zr.Close()
		return nil, err
	}
	return ar, nil
}

func (r *Reader) readManifest(maxBytes int64) error {
	hdr, err := r.tr.Next()
	if err != nil {
		return r.fail(fmt.Errorf("reading the manifest: %w", err))
	}
	if hdr.Name != ManifestName || hdr.Typeflag != tar.TypeReg {
		return fmt.Errorf("%w: first entry is %q, not %s", ErrCorrupt, hdr.Name, ManifestName)
	}
	if hdr.Size > MaxManifestBytes {
		return fmt.Errorf("%w: manifest of %d bytes", ErrTooLarge, hdr.Size)
	}
	data, err := io.ReadAll(r.tr)
	if err != nil {
		return r.fail(fmt.Errorf("reading the manifest: %w", err))
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("%w: manifest: %v", ErrCorrupt, err)
	}
	if err := m.Validate(); err != nil {
		return err
	}
	var size int64
	for _, f := range m.Files {
		if f.Size > maxBytes-size {
			return fmt.Errorf("%w: week %s decompresses to more than the %d bytes allowed (archive.max_week_mb)", ErrTooLarge, m.Week, maxBytes)
		}
		size += f.Size
	}
	// From now on the stream may hold the files, padded to 512-byte
	// blocks, their headers and the end marker; nothing more.
	budget := int64(64 << 10)
	for _, f := range m.Files {
		budget += (f.Size+511)/512*512 + 4*512 + int64(len(f.Path))*2
	}
	r.lim.n = budget
	r.m = &m
	return nil
}

// fail turns a read error into one that says what went wrong.
func (r *Reader) fail(err error) error {
	switch {
	case errors.Is(err, ErrCorrupt), errors.Is(err, ErrTooLarge):
		return err
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: truncated: %v", ErrCorrupt, err)
	}
	return fmt.Errorf("%w: %v", ErrCorrupt, err)
}

// Manifest returns the archive's manifest.
func (r *Reader) Manifest() *Manifest { return r.m }

// Next advances to the next file and returns its manifest entry. After the
// last file it checks that the archive ends there and returns io.EOF. Any
// unread part of the current file is read and checked first.
func (r *Reader) Next() (*FileEntry, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.done {
		return nil, io.EOF
	}
	if r.cur != nil {
		if _, err := io.Copy(io.Discard, r); err != nil {
			return nil, err
		}
	}
	r.cur = nil
	hdr, err := r.tr.Next()
	if err == io.EOF {
		if r.next < len(r.m.Files) {
			return nil, r.setErr(fmt.Errorf("%w: truncated: the archive ends after %d of its %d files", ErrCorrupt, r.next, len(r.m.Files)))
		}
		return nil, r.finish()
	}
	if err != nil {
		return nil, r.setErr(r.fail(err))
	}
	if !ValidPath(hdr.Name) {
		return nil, r.setErr(fmt.Errorf("%w: entry %q escapes the week folder", ErrUnsafePath, hdr.Name))
	}
	if hdr.Typeflag != tar.TypeReg || hdr.Linkname != "" {
		return nil, r.setErr(fmt.Errorf("%w: entry %q is not a regular file (type %q)", ErrUnsafePath, hdr.Name, hdr.Typeflag))
	}
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return nil, r.setErr(fmt.Errorf("%w: entry %q is a sparse file", ErrUnsafePath, hdr.Name))
		}
	}
	if r.next >= len(r.m.Files) {
		return nil, r.setErr(fmt.Errorf("%w: entry %q is not in the manifest", ErrCorrupt, hdr.Name))
	}
	want := &r.m.Files[r.next]
	if hdr.Name != want.Path {
		return nil, r.setErr(fmt.Errorf("%w: entry %q found where the manifest lists %q", ErrCorrupt, hdr.Name, want.Path))
	}
	if hdr.Size != want.Size {
		return nil, r.setErr(fmt.Errorf("%w: entry %q holds %d bytes, the manifest says %d", ErrCorrupt, hdr.Name, hdr.Size, want.Size))
	}
	r.next++
	r.cur, r.n = want, 0
	r.h = sha256.New()
	return want, nil
}

// finish reads the rest of the stream and checks that it ends cleanly.
func (r *Reader) finish() error {
	// Go's tar writer ends with two zero blocks; other writers pad to a
	// record. Whatever is left must decompress cleanly, within bounds.
	if _, err := io.Copy(io.Discard, r.lim); err != nil {
		return r.setErr(r.fail(err))
	}
	// The decompressor can end early on a truncated stream; make sure
	// the compressed input was consumed to its last byte.
	if _, err := io.Copy(io.Discard, r.fc); err != nil {
		return r.setErr(r.fail(err))
	}
	if !r.fc.complete() {
		return r.setErr(fmt.Errorf("%w: truncated: the compressed stream ends inside a frame", ErrCorrupt))
	}
	r.done = true
	r.total = r.src.n
	return io.EOF
}

func (r *Reader) setErr(err error) error {
	r.err = err
	return err
}

// Read reads the current file. It returns io.EOF at the file's end only if
// the file matched its manifest entry; otherwise an error wrapping
// [ErrCorrupt].
func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.cur == nil {
		return 0, io.EOF
	}
	n, err := r.tr.Read(p)
	r.h.Write(p[:n])
	r.n += int64(n)
	if err == io.EOF {
		if r.n != r.cur.Size || hex.EncodeToString(r.h.Sum(nil)) != r.cur.SHA256 {
			return n, r.setErr(fmt.Errorf("%w: entry %q does not match its sha256 in the manifest", ErrCorrupt, r.cur.Path))
		}
		return n, io.EOF
	}
	if err != nil {
		return n, r.setErr(r.fail(fmt.Errorf("entry %q: %w", r.cur.Path, err)))
	}
	return n, nil
}

// Sum returns the size and hex sha256 of the compressed archive; valid
// once [Reader.Next] has returned io.EOF.
func (r *Reader) Sum() (int64, string) {
	if !r.done {
		return 0, ""
	}
	return r.total, hex.EncodeToString(r.src.h.Sum(nil))
}

// Close frees the decompressor. It does not close the underlying reader.
func (r *Reader) Close() error {
	if r.zr == nil {
		return nil
	}
	err := r.zr.Close()
	r.zr = nil
	return err
}

// Walk reads every file of the archive r in order, calling fn with each
// entry and a reader of its content, and checks the whole archive. If fn
// returns without reading to the end, the rest of the file is read and
// checked before the next one. An error from fn stops the walk.
func Walk(r io.Reader, maxBytes int64, fn func(*FileEntry, io.Reader) error) (*Info, error) {
	ar, err := NewReader(r, maxBytes)
	if err != nil {
		return nil, err
	}
	defer ar.Close()
	for {
		f, err := ar.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if fn != nil {
			if err := fn(f, ar); err != nil {
				return nil, err
			}
		}
	}
	n, sum := ar.Sum()
	return &Info{Manifest: ar.m, Bytes: n, SHA256: sum}, nil
}

// Verify reads the archive file at path to its end and checks every file
// against the manifest. Errors name the file.
func Verify(path string, maxBytes int64) (*Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := Walk(f, maxBytes, nil)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", path, err)
	}
	return info, nil
}

// hashReader counts and hashes what is read through it.
type hashReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (h *hashReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.h.Write(p[:n])
	h.n += int64(n)
	return n, err
}

// limitReader fails with ErrTooLarge once more than n bytes were asked of
// it.
type limitReader struct {
	r io.Reader
	n int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		// Allow a clean end exactly at the limit.
		var one [1]byte
		if k, err := l.r.Read(one[:]); k == 0 && err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("%w: it decompresses to more than its manifest allows", ErrTooLarge)
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// CheckFile reads the archive file at path and checks that its hex sha256
// is sum, without decompressing anything, so that a damaged or replaced
// archive is refused before it costs a decompression. A mismatch is an
// error wrapping [ErrCorrupt]. Errors name the file.
func CheckFile(path, sum string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("archive %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("archive %s: %w", path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		return fmt.Errorf("archive %s: %w: its sha256 is %s, but %s was recorded when the week was sealed", path, ErrCorrupt, got, sum)
	}
	return nil
}
