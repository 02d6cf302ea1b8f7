//go:build !linux

package engine

import "os"

// syncFiles flushes the files just written to disk, one by one.
func syncFiles(_ string, files []string) error {
	for _, p := range files {
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
