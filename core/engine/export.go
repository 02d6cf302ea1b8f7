package engine

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// ExportOptions choose what [Engine.Export] writes.
type ExportOptions struct {
	// Namespace is the namespace to export ("" is the default one).
	Namespace string
	// All exports every namespace; Namespace must then be "".
	All bool
	// Session, when set, exports that one session of Namespace; it fails
	// with core.ErrNotFound when the namespace has no such session.
	Session string
}

// exportLine is one line of the generic JSONL format (see core/jsonl), in
// the README's field order.
type exportLine struct {
	Session   string `json:"session"`
	Time      string `json:"time"`
	Role      string `json:"role,omitempty"`
	Speaker   string `json:"speaker,omitempty"`
	Text      string `json:"text"`
	Ref       string `json:"ref,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// export is [Engine.Export].
func (r *reader) export(ctx context.Context, w io.Writer, opts ExportOptions) (int, error) {
	if opts.All && opts.Namespace != "" {
		return 0, fmt.Errorf("%w: export takes a namespace or all of them, not both", core.ErrInvalid)
	}
	if opts.All && opts.Session != "" {
		return 0, fmt.Errorf("%w: export takes one session of a namespace, or all namespaces, not both", core.ErrInvalid)
	}
	if err := core.ValidateNamespace(opts.Namespace); err != nil {
		return 0, fmt.Errorf("%w: %w", core.ErrInvalid, err)
	}
	if r.closed {
		return 0, core.ErrClosed
	}
	var sessions []*store.Session
	err := r.st.View(func(tx *store.Tx) error {
		return tx.ForEachSession(func(s *store.Session) error {
			if opts.All || s.NS == opts.Namespace && (opts.Session == "" || s.Session == opts.Session) {
				sessions = append(sessions, s)
			}
			return nil
		})
	})
	if err != nil {
		return 0, err
	}
	if opts.Session != "" && len(sessions) == 0 {
		return 0, fmt.Errorf("export of session %q: %w", opts.Session, core.ErrNotFound)
	}
	slices.SortFunc(sessions, func(a, b *store.Session) int {
		return cmp.Or(cmp.Compare(a.NS, b.NS), compareTimes(a.First, b.First), cmp.Compare(a.Session, b.Session))
	})
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	n := 0
	for _, s := range sessions {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		var lines []exportLine
		err := r.st.View(func(tx *store.Tx) error {
			stored, _, err := tx.SessionMessages(s.NS, s.Session)
			if err != nil {
				return err
			}
			lines = lines[:0]
			for _, sm := range stored {
				text := sm.Text
				if sm.Sealed {
					if text, err = r.sealedText(tx, sm); err != nil {
						return err
					}
				}
				lines = append(lines, exportLine{Session: sm.Session, Time: sm.Time, Role: sm.Role, Speaker: sm.Speaker,
					Text: text, Ref: sm.Ref, Namespace: sm.NS})
			}
			return nil
		})
		if err != nil {
			return n, fmt.Errorf("exporting session %q: %w", s.Session, err)
		}
		for i := range lines {
			if err := enc.Encode(&lines[i]); err != nil {
				return n, fmt.Errorf("writing export: %w", err)
			}
			n++
		}
	}
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("writing export: %w", err)
	}
	return n, nil
}

// compareTimes orders two RFC 3339 times by instant; unparsable ones
// compare as text.
func compareTimes(a, b string) int {
	ta, err1 := time.Parse(time.RFC3339Nano, a)
	tb, err2 := time.Parse(time.RFC3339Nano, b)
	if err1 != nil || err2 != nil {
		return cmp.Compare(a, b)
	}
	return ta.Compare(tb)
}
