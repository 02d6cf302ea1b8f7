package cold

import (
	"os"

	"golang.org/x/sys/unix"
)

// dropPageCache asks the kernel to drop f's clean pages from the page
// cache.
func dropPageCache(f *os.File) error {
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
