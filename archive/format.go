package archive

import (
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/huimemory/huimemory/timeparse"

	"github.com/huimemory/huimemory/core"
)

// FormatVersion is the version of the week archive format that [Write]
// produces and [NewReader] reads.
//
// A week archive, sessions/<week>.tar.zst (sessions/@<ns>/<week>.tar.zst
// for a namespace), is one zstd stream holding a POSIX tar stream (PAX
// headers where a name needs them, as Go's archive/tar writes them). Its
// first entry is MANIFEST.json, a [Manifest]; the other entries are the
// regular files of the week folder, named by their path inside it
// ("2026-04-13/chat_s1.md"), in the manifest's order, which is byte order
// of the paths. Nothing else may appear: no directories, links or devices.
// `tar --zstd -xf 2026-W47.tar.zst` unpacks it with standard tools.
//
// Changelog:
//
//	1: first version.
const FormatVersion = 1

// ManifestName is the name of an archive's first entry.
const ManifestName = "MANIFEST.json"

// Ext is the file extension of a week archive.
const Ext = ".tar.zst"

// Limits a reader enforces whatever the archive claims.
const (
	// MaxManifestBytes bounds MANIFEST.json.
	MaxManifestBytes = 64 << 20
	// MaxFiles bounds the files of one week.
	MaxFiles = 1 << 20
	// MaxPathBytes bounds one entry's path.
	MaxPathBytes = 1024
)

// Errors that callers branch on. Errors from this package wrap one of them
// and, when a file is involved, name it.
var (
	// ErrCorrupt means an archive is damaged or truncated, or does not
	// match its manifest.
	ErrCorrupt = errors.New("archive is corrupt")
	// ErrUnsafePath means an entry's name would escape the week folder or
	// is not a regular file.
	ErrUnsafePath = errors.New("unsafe archive entry")
	// ErrTooLarge means the archive decompresses to more than allowed.
	ErrTooLarge = errors.New("archive is too large")
	// ErrVersion means the archive was written by a newer format version.
	ErrVersion = errors.New("unsupported archive format version")
)

// Manifest lists a week archive's files. It is stored inside the archive
// as its first entry, MANIFEST.json.
type Manifest struct {
	Version   int         `json:"version"`
	Namespace string      `json:"namespace"`
	Week      string      `json:"week"`
	Files     []FileEntry `json:"files"`
}

// FileEntry is one file of a week: its path inside the week folder, its
// size and the hex sha256 of its content.
type FileEntry struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Size returns the total size of the manifest's files: the week's size
// once decompressed.
func (m *Manifest) Size() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	return n
}

// File returns the entry with the given path, or nil.
func (m *Manifest) File(p string) *FileEntry {
	for i := range m.Files {
		if m.Files[i].Path == p {
			return &m.Files[i]
		}
	}
	return nil
}

// Validate checks a manifest read from an archive: its version, week,
// namespace and every file entry. Paths must be valid (see [ValidPath]),
// strictly increasing and never both a file and a folder.
func (m *Manifest) Validate() error {
	if m.Version != FormatVersion {
		if m.Version > FormatVersion {
			return fmt.Errorf("%w %d: this huimem reads version %d; upgrade it", ErrVersion, m.Version, FormatVersion)
		}
		return fmt.Errorf("%w: manifest version %d", ErrCorrupt, m.Version)
	}
	if _, err := timeparse.ParseWeek(m.Week); err != nil {
		return fmt.Errorf("%w: manifest: %v", ErrCorrupt, err)
	}
	if err := core.ValidateNamespace(m.Namespace); err != nil {
		return fmt.Errorf("%w: manifest: %v", ErrCorrupt, err)
	}
	if len(m.Files) > MaxFiles {
		return fmt.Errorf("%w: manifest lists %d files, more than %d", ErrTooLarge, len(m.Files), MaxFiles)
	}
	for i, f := range m.Files {
		if !ValidPath(f.Path) {
			return fmt.Errorf("%w: manifest entry %q escapes the week folder", ErrUnsafePath, f.Path)
		}
		if f.Size < 0 {
			return fmt.Errorf("%w: manifest entry %q has size %d", ErrCorrupt, f.Path, f.Size)
		}
		if len(f.SHA256) != 64 || strings.ToLower(f.SHA256) != f.SHA256 {
			return fmt.Errorf("%w: manifest entry %q has a bad sha256 %q", ErrCorrupt, f.Path, f.SHA256)
		}
		if _, err := hex.DecodeString(f.SHA256); err != nil {
			return fmt.Errorf("%w: manifest entry %q has a bad sha256 %q", ErrCorrupt, f.Path, f.SHA256)
		}
		if i > 0 {
			prev := m.Files[i-1].Path
			if prev >= f.Path {
				return fmt.Errorf("%w: manifest entries %q and %q are out of order or repeated", ErrCorrupt, prev, f.Path)
			}
			if strings.HasPrefix(f.Path, prev+"/") {
				return fmt.Errorf("%w: manifest entry %q is both a file and a folder", ErrCorrupt, prev)
			}
		}
	}
	return nil
}

// ValidPath reports whether p may name a file inside a week folder: a
// relative, clean, slash-separated path of valid UTF-8 without control
// characters or backslashes, whose elements are neither empty, "." nor
// "..", at most [MaxPathBytes] long, and not [ManifestName]. Anything else
// could escape the folder it is extracted into and is rejected.
func ValidPath(p string) bool {
	if p == "" || len(p) > MaxPathBytes || p == ManifestName || !utf8.ValidString(p) {
		return false
	}
	if strings.ContainsAny(p, `\:`) || strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return false
	}
	if p[0] == '/' || path.Clean(p) != p {
		return false
	}
	for _, el := range strings.Split(p, "/") {
		if el == "" || el == "." || el == ".." {
			return false
		}
	}
	return true
}

// ArchiveFile returns the path, relative to the sessions root, of a
// namespace's sealed week: "2026-W15.tar.zst" or "@alice/2026-W15.tar.zst".
func ArchiveFile(namespace, week string) string {
	return transcript.SessionDir(namespace, week) + Ext
}
