package host

import (
	"errors"
	"fmt"
)

// Errors that callers branch on, wrapped in an [*Error].
var (
	// ErrStart means the plugin could not be started: the program is
	// missing, is not a HuiMemory plugin, failed the go-plugin handshake
	// (such as another protocol version), or refused its options.
	ErrStart = errors.New("failed to start")
	// ErrChecksum means the program's sha256 is not the configured one.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrCrashed means the plugin process died during a call.
	ErrCrashed = errors.New("crashed during the call")
	// ErrTimeout means a call ran past cfg.Plugins.Timeout.
	ErrTimeout = errors.New("timed out")
	// ErrClosed means the host was used after Close.
	ErrClosed = errors.New("plugin host is closed")
)

// Error is a plugin's failure. Its text names the plugin and its program:
//
//	plugin embedder "foo" (/path/to/bin): checksum mismatch: ...
type Error struct {
	// Kind is "embedder", "chunker" or "extractor".
	Kind string
	// Name is the plugin's configured name.
	Name string
	// Program is the plugin's program, or "built-in" for a built-in.
	Program string
	Err     error
}

func (e *Error) Error() string {
	return fmt.Sprintf("plugin %s %q (%s): %v", e.Kind, e.Name, e.Program, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
