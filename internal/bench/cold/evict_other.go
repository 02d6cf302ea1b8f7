//go:build !linux

package cold

import (
	"errors"
	"os"
)

// dropPageCache is not available here: Options.Evict is Linux only.
func dropPageCache(*os.File) error {
	return errors.New("dropping a file from the page cache is supported on Linux only")
}
