//go:build !linux

package store

// ReleaseMemory does nothing on this system (see release_linux.go).
func (s *Store) ReleaseMemory() {}

// ReleaseMemory does nothing on this system (see release_linux.go).
func (t *Tx) ReleaseMemory() {}
