//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

package archive

// lockShared does nothing here: without file locks, a temporary folder
// is taken for a live extraction until it is an hour old.
func lockShared(string) (unlock func()) { return func() {} }

// tryLockExclusive always fails here, so that only old temporary folders
// are removed.
func tryLockExclusive(string) (unlock func(), ok bool) { return nil, false }
