package cold

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// A process's peak RSS counts the pages of its own binary that it maps,
// and how many those are depends on how the binary came into the page
// cache, not on the program: on Linux 6.18 with ext4, a file just written
// (by the linker, or by `cp`) sits in folios of up to 2 MiB, and the
// kernel maps a whole folio at the first touch, so nearly all of a 57 MB
// binary's 39 MB of code and read-only data is resident in every process;
// read back from disk (after a reboot, or once evicted) it comes in
// through readahead in smaller folios, and a process maps only what it
// runs: `huimem --help` peaks at 37 MiB in the first state and 24 MiB in
// the second. The home's files are the same: a recall right after the
// ingest that wrote them maps 7–8 MiB of a 10 MB index segment, and
// 1.6 MiB of it read back. Options.Evict measures the second state of
// both: the binary as installed before the last reboot, and a home
// written before it.

// installEvicted copies the binary exe into dir, as an installed binary,
// and drops the copy from the page cache, so that the processes started
// from it read it back from disk the way a binary that was not just
// written is read. It returns the copy's path.
func installEvicted(exe, dir string) (string, error) {
	dst := filepath.Join(dir, "bin", filepath.Base(exe))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", fmt.Errorf("installing a copy of %s: %w", exe, err)
	}
	src, err := os.Open(exe)
	if err != nil {
		return "", fmt.Errorf("installing a copy of %s: %w", exe, err)
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return "", fmt.Errorf("installing a copy of %s: %w", exe, err)
	}
	_, err = io.Copy(out, src)
	if err == nil {
		err = out.Sync() // dirty pages cannot be dropped
	}
	if err == nil {
		err = dropPageCache(out)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("installing a copy of %s in %s: %w", exe, dst, err)
	}
	return dst, nil
}

// evictTree drops the regular files under dir from the page cache, after
// writing out what is dirty.
func evictTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		err = f.Sync()
		if err == nil {
			err = dropPageCache(f)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("dropping %s from the page cache: %w", path, err)
		}
		return nil
	})
}
