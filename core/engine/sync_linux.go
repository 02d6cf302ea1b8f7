package engine

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFiles flushes the files just written under root to disk with one
// syncfs call for the whole file system.
func syncFiles(root string, files []string) error {
	if len(files) == 0 {
		return nil
	}
	d, err := os.Open(root)
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}
