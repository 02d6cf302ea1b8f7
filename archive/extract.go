package archive

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
)

// ExtractOptions tune [Extract].
type ExtractOptions struct {
	// MaxBytes bounds the week's decompressed size.
	MaxBytes int64
	// SHA256, when set, is the hex sha256 the archive file must have, so
	// that an archive replaced since it was recorded is not mistaken for
	// the one expected.
	SHA256 string
	// Sync flushes every file and folder to disk before dst appears.
	Sync bool
}

// Extract checks the archive file src and unpacks it into the folder dst,
// which must not exist. It unpacks into a temporary folder beside dst and
// renames that into place only once every file matched the manifest, so
// dst either appears complete or not at all; on error nothing is left
// behind. Entries are created through an [os.Root], so even a name that
// slipped past [ValidPath] could not land outside dst. Errors name src.
func Extract(src, dst string, opts ExtractOptions) (*Info, error) {
	info, err := extract(src, dst, opts)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", src, err)
	}
	return info, nil
}

func extract(src, dst string, opts ExtractOptions) (*Info, error) {
	if opts.SHA256 != "" {
		// Check the compressed file before anything is decompressed.
		if err := CheckFile(src, opts.SHA256); err != nil {
			return nil, err
		}
	}
	in, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	parent := filepath.Dir(dst)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-"+filepath.Base(dst)+"-")
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	root, err := os.OpenRoot(tmp)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	info, err := Walk(in, opts.MaxBytes, func(f *FileEntry, r io.Reader) error {
		return writeEntry(root, f.Path, r, opts.Sync)
	})
	if err != nil {
		return nil, err
	}
	if opts.SHA256 != "" && info.SHA256 != opts.SHA256 {
		return nil, fmt.Errorf("%w: its sha256 is %s, but %s was recorded when the week was sealed", ErrCorrupt, info.SHA256, opts.SHA256)
	}
	if opts.Sync {
		if err := syncTree(tmp); err != nil {
			return nil, err
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		// A concurrent extraction of the same archive into the same
		// folder finished first: its copy is as good (the temporary one
		// is removed on return).
		if fi, serr := os.Stat(dst); serr == nil && fi.IsDir() && opts.SHA256 != "" {
			return info, nil
		}
		return nil, err
	}
	ok = true
	if opts.Sync {
		if err := SyncDir(parent); err != nil {
			return nil, err
		}
	}
	return info, nil
}

func writeEntry(root *os.Root, name string, r io.Reader, sync bool) error {
	if !ValidPath(name) {
		return fmt.Errorf("%w: entry %q escapes the week folder", ErrUnsafePath, name)
	}
	if dir := path.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncTree flushes every folder under dir (files were flushed as they
// were written).
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return SyncDir(p)
	})
}

// SyncDir flushes a folder's entries (names created, renamed or removed
// in it) to disk.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("flushing %s: %w", dir, err)
	}
	return nil
}
