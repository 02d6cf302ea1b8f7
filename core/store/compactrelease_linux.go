package store

import "syscall"

// releaseMapped drops the size bytes of a bbolt memory map at base from
// this process's resident set (madvise MADV_DONTNEED). The map is shared
// and read-only, so nothing is lost: the pages stay in the page cache and
// a later read faults them in again. Errors are ignored: it only saves
// memory.
func releaseMapped(base uintptr, size int64) {
	if base == 0 || size <= 0 {
		return
	}
	syscall.Syscall(syscall.SYS_MADVISE, base, uintptr(size), syscall.MADV_DONTNEED)
}
