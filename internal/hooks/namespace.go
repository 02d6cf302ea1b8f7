package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
)

// ProjectRoot returns the folder that stands for the project dir is in:
// the nearest folder at or above dir that holds a .git entry (a
// repository, or a worktree's .git file), else dir itself. dir is made
// absolute, with symbolic links resolved where they can be, so that an
// agent that cd'd into a subfolder, or reached the project through a
// link, still names the same project. It reads only the file system's
// metadata.
func ProjectRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return abs, nil
		}
		d = up
	}
}

// maxSlug bounds the folder-name part of a project namespace.
const maxSlug = 40

// ProjectNamespace returns the namespace of the project whose root
// folder is root (see [ProjectRoot]): the folder's name in lower case,
// with every run of characters other than ASCII letters and digits made
// one "-" ("project" when nothing is left), a "-", and the first 8 hex
// digits of the sha256 of the root's path, such as "huimemory-3f9a1c0b".
// Two folders of the same name are two namespaces; the name keeps it
// readable in `huimem stats` and in a filter.
func ProjectNamespace(root string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(filepath.Base(root)) {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	slug := b.String()
	if len(slug) > maxSlug {
		slug = strings.TrimRight(slug[:maxSlug], "-")
	}
	if slug == "" {
		slug = "project"
	}
	sum := sha256.Sum256([]byte(filepath.ToSlash(root)))
	return slug + "-" + hex.EncodeToString(sum[:4])
}
