//go:build !linux

package store

// releaseMapped does nothing here (see compactrelease_linux.go).
func releaseMapped(base uintptr, size int64) {}
