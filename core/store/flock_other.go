//go:build !unix

package store

import "os"

// tryFlock always succeeds where flock is not available: processes are
// then not coordinated beyond bbolt's own lock.
func tryFlock(*os.File, bool) (bool, error) { return true, nil }

func unflock(*os.File) error { return nil }
