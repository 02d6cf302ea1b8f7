package cold

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// copyShift is how far each copy of a chat is moved in time: 52 weeks,
// so that a copy keeps its days of the week and lands in weeks of its own.
const copyShift = 52 * 7 * 24 * time.Hour

// WriteCopies writes copies of the generic JSONL chat files into dir, for
// a real-text corpus larger than the files: copy k (from 1) of a message
// is in session "<session>~k", 52·k weeks later, with ref "<ref>~k"; copy
// 0 is the file as it is. It returns the files written, copy by copy. A
// line that is not a JSON object is an error naming the file and line.
func WriteCopies(files []string, dir string, copies int) ([]string, error) {
	if copies < 1 {
		return nil, fmt.Errorf("copies: %d copies; want at least 1", copies)
	}
	var out []string
	for k := range copies {
		for _, f := range files {
			dst := filepath.Join(dir, fmt.Sprintf("copy%d-%s", k, filepath.Base(f)))
			if err := writeCopy(f, dst, k); err != nil {
				return nil, err
			}
			out = append(out, dst)
		}
	}
	return out, nil
}

// writeCopy writes copy k of the JSONL file src to dst.
func writeCopy(src, dst string, k int) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("copies: %w", err)
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	line := 0
	for l := range bytes.Lines(data) {
		line++
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			return fmt.Errorf("copies: %s:%d: %v", src, line, err)
		}
		if k > 0 {
			suffix := fmt.Sprintf("~%d", k)
			for _, key := range []string{"session", "ref"} {
				if s, ok := m[key].(string); ok && s != "" {
					m[key] = s + suffix
				}
			}
			if s, ok := m["time"].(string); ok && s != "" {
				t, err := time.Parse(time.RFC3339Nano, s)
				if err != nil {
					return fmt.Errorf("copies: %s:%d: time %q: %v", src, line, s, err)
				}
				m["time"] = t.Add(time.Duration(k) * copyShift).Format(time.RFC3339Nano)
			}
		}
		out, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("copies: %s:%d: %v", src, line, err)
		}
		w.Write(out)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("copies: %w", err)
	}
	return nil
}
