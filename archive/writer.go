package archive

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/huimemory/huimemory/timeparse"

	"github.com/DataDog/zstd"

	"github.com/huimemory/huimemory/core"
)

// DefaultLevel is the zstd level used when none is given.
const DefaultLevel = 3

// WriteOptions tune [Write].
type WriteOptions struct {
	// Namespace and Week name the week; they are recorded in the manifest.
	Namespace string
	Week      string
	// Level is the zstd compression level, 1 to 22; 0 means DefaultLevel.
	Level int
	// MaxBytes, when positive, bounds the week's total size, so that no
	// archive is written that a reader with the same bound would refuse.
	MaxBytes int64
}

// Info describes a written or verified archive.
type Info struct {
	Manifest *Manifest
	// Bytes is the compressed size and SHA256 the hex sha256 of the
	// archive file itself.
	Bytes  int64
	SHA256 string
}

// Ratio returns the compression ratio: decompressed size over archive
// size.
func (i *Info) Ratio() float64 {
	if i.Bytes == 0 {
		return 0
	}
	return float64(i.Manifest.Size()) / float64(i.Bytes)
}

// Write packs every regular file under dir, the week folder, into w as a
// week archive (see [FormatVersion]). The output depends only on the
// files' paths and contents, so packing the same folder twice gives the
// same bytes. Write reads each file twice, once to hash it for the
// manifest and once to copy it; a file that changes in between makes it
// fail. Anything under dir that is not a regular file or a folder (a
// link, a device) makes it fail too, as does a name that [ValidPath]
// rejects. It neither changes nor removes anything under dir.
func Write(w io.Writer, dir string, opts WriteOptions) (*Info, error) {
	if _, err := timeparse.ParseWeek(opts.Week); err != nil {
		return nil, err
	}
	if err := core.ValidateNamespace(opts.Namespace); err != nil {
		return nil, err
	}
	level := opts.Level
	if level == 0 {
		level = DefaultLevel
	}
	m := &Manifest{Version: FormatVersion, Namespace: opts.Namespace, Week: opts.Week, Files: []FileEntry{}}
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !d.Type().IsRegular() {
			return fmt.Errorf("%w: %s is not a regular file", ErrUnsafePath, p)
		}
		if !ValidPath(rel) {
			return fmt.Errorf("%w: %s cannot be archived: its name is not allowed", ErrUnsafePath, p)
		}
		size, sum, err := hashFile(p)
		if err != nil {
			return err
		}
		total += size
		if opts.MaxBytes > 0 && total > opts.MaxBytes {
			return fmt.Errorf("%w: week %s holds more than %d bytes (archive.max_week_mb)", ErrTooLarge, opts.Week, opts.MaxBytes)
		}
		m.Files = append(m.Files, FileEntry{Path: rel, Size: size, SHA256: sum})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// WalkDir visits names in lexical order per folder, which is not byte
	// order of whole paths ("a-b/x" < "a/x" but "a" < "a-b"); the format
	// wants the latter.
	slices.SortFunc(m.Files, func(a, b FileEntry) int { return strings.Compare(a.Path, b.Path) })
	if err := m.Validate(); err != nil {
		return nil, err
	}
	cw := &countWriter{w: w, h: sha256.New()}
	zw := zstd.NewWriterLevel(cw, level)
	tw := tar.NewWriter(zw)
	wk, _ := timeparse.ParseWeek(opts.Week)
	mtime, _ := wk.Range(time.UTC)
	data := ManifestJSON(m)
	err = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: ManifestName, Mode: 0o644, Size: int64(len(data)), ModTime: mtime, Format: tar.FormatPAX})
	if err == nil {
		_, err = tw.Write(data)
	}
	for _, f := range m.Files {
		if err != nil {
			break
		}
		err = copyEntry(tw, filepath.Join(dir, filepath.FromSlash(f.Path)), f, mtime)
	}
	if err == nil {
		err = tw.Close()
	}
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("packing week %s: %w", opts.Week, err)
	}
	return &Info{Manifest: m, Bytes: cw.n, SHA256: hex.EncodeToString(cw.h.Sum(nil))}, nil
}

func copyEntry(tw *tar.Writer, p string, f FileEntry, mtime time.Time) error {
	in, err := os.Open(p)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.Path, Mode: 0o644, Size: f.Size, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tw, h), io.LimitReader(in, f.Size+1))
	if err != nil && n != f.Size {
		return err
	}
	if n != f.Size || hex.EncodeToString(h.Sum(nil)) != f.SHA256 {
		return fmt.Errorf("%s changed while it was being packed", p)
	}
	return nil
}

func hashFile(p string) (int64, string, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", fmt.Errorf("reading %s: %w", p, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// countWriter counts and hashes what passes through it.
type countWriter struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.h.Write(p[:n])
	return n, err
}

// ManifestJSON returns m as stored in an archive.
func ManifestJSON(m *Manifest) []byte {
	data, _ := json.MarshalIndent(m, "", "  ")
	return append(data, '\n')
}
