package index

import (
	"syscall"
	"unsafe"
)

// releaseMapped drops the pages of b, a shared read-only file map, from
// this process's resident set (madvise MADV_DONTNEED): they stay in the
// page cache and a later read faults them in again.
func releaseMapped(b []byte) {
	if len(b) == 0 {
		return
	}
	syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), syscall.MADV_DONTNEED)
}
