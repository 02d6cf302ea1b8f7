package index

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	bolterrors "go.etcd.io/bbolt/errors"
)

// OpenOptions tune [OpenWith].
type OpenOptions struct {
	// ReadOnly opens the index without writing to it: bleve takes a
	// shared lock on its root.bolt, which any number of processes may
	// hold at once, writes nothing and starts no persister or merger. A
	// missing index is then an error wrapping [ErrCorrupt]; Apply fails.
	ReadOnly bool
	// LockWait bounds the wait for another process's lock on root.bolt;
	// 0 waits as long as it takes.
	LockWait time.Duration
}

// ErrLocked means another process held the index's lock for longer than
// [OpenOptions.LockWait].
var ErrLocked = errors.New("index is locked by another process")

// OpenWith opens the index at dir as o says; with no options it is
// [Open]. An index that cannot be opened returns an error wrapping
// [ErrCorrupt], one whose lock was not released in time [ErrLocked].
func OpenWith(dir string, o OpenOptions) (*Index, error) {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if o.ReadOnly {
			return nil, fmt.Errorf("opening index %s: %w: it does not exist", dir, ErrCorrupt)
		}
		return create(dir)
	}
	cfg := map[string]any{}
	if o.ReadOnly {
		cfg["read_only"] = true
	}
	if o.LockWait > 0 {
		cfg["bolt_timeout"] = o.LockWait.String()
	}
	// The index is read with the mapping this version builds, not the
	// one saved in it: an index of another version is refused below, and
	// TestMappingOfVersion keeps a change of the mapping from going out
	// without a new version.
	m, err := NewMapping()
	if err != nil {
		return nil, err
	}
	b, err := openBleve(dir, cfg, m)
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("opening index %s: %w", dir, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("opening index %s: %w: %v", dir, ErrCorrupt, err)
	}
	v, err := b.GetInternal(keyVersion)
	if err != nil || string(v) != strconv.Itoa(Version) {
		b.Close()
		return nil, fmt.Errorf("opening index %s: %w: version %q", dir, ErrCorrupt, v)
	}
	if _, err := b.DocCount(); err != nil {
		b.Close()
		return nil, fmt.Errorf("opening index %s: %w: %v", dir, ErrCorrupt, err)
	}
	return &Index{b: b, path: dir, readOnly: o.ReadOnly}, nil
}
