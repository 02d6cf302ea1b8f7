package zap

import (
	"os"
	"syscall"
	"unsafe"
)

// releaseMapped lets this process's resident set drop the whole pages of
// b, a part of a read-only file map (madvise MADV_DONTNEED): they stay in
// the page cache, and a later read maps them again (HuiMemory, PATCH.md).
func releaseMapped(b []byte) {
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	end := start + uintptr(len(b))
	start = (start + page - 1) &^ (page - 1)
	end &^= page - 1
	if end > start {
		syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_DONTNEED)
	}
}
