//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package archive

import (
	"os"
	"syscall"
)

// lockShared takes a shared lock on the file at path, creating it, and
// returns the function that releases it. Errors leave the caller
// unlocked, as if on a system without locks.
func lockShared(path string) (unlock func()) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return func() {}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		f.Close()
		return func() {}
	}
	return func() { f.Close() } // closing releases the lock
}

// tryLockExclusive takes an exclusive lock on the file at path without
// waiting. ok is false when someone holds a lock on it (or it cannot be
// locked).
func tryLockExclusive(path string) (unlock func(), ok bool) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
