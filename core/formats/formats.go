package formats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/huimemory/huimemory/core"
)

// Options tune how a file is read.
type Options struct {
	// Namespace is given to messages that name none.
	Namespace string
	// Location is used for times without an offset and for Unix
	// timestamps (ChatGPT, Slack); nil means UTC.
	Location *time.Location
	// ModTime is the file's modification time: a plain-text transcript
	// without times gets ModTime plus one second per message. Zero means
	// 2000-01-01 00:00:00 UTC.
	ModTime time.Time
	// SlackUsers maps Slack user ids to display names. [ReadFile] fills it
	// from the export's users.json when it is nil.
	SlackUsers map[string]string
}

func (o *Options) loc() *time.Location {
	if o.Location == nil {
		return time.UTC
	}
	return o.Location
}

// Format is one supported export format.
type Format struct {
	// Name is what `huimem ingest --format` takes.
	Name string
	// Description says in a few words what the format is.
	Description string
	// Read parses a whole file. name is used in errors and, for some
	// formats, to derive the session. It returns all messages or none.
	Read func(r io.Reader, name string, opts Options) ([]core.Message, error)
	// Stream, when set, yields the file's messages one by one in memory
	// bounded by one conversation or one line (see [StreamFile]); the
	// first error ends it. Read is then Stream collected.
	Stream func(r io.Reader, name string, opts Options) iter.Seq2[core.Message, error]
}

// Formats returns every supported format, in detection order.
func Formats() []*Format { return registry }

var registry = []*Format{
	{Name: "chatgpt", Description: "ChatGPT conversations.json (mapping tree)", Read: readChatGPT, Stream: streamChatGPT},
	{Name: "claude", Description: "Claude.ai export conversations.json", Read: readClaude, Stream: streamClaude},
	{Name: "claude-code", Description: "Claude Code session JSONL", Read: readClaudeCode, Stream: streamClaudeCode},
	{Name: "codex", Description: "Codex CLI session JSONL (rollout-*.jsonl)", Read: readCodex, Stream: streamCodex},
	{Name: "slack", Description: "Slack export day file (<channel>/YYYY-MM-DD.json)", Read: readSlack},
	{Name: "markdown", Description: "HuiMemory markdown transcript (chat_*.md)", Read: readMarkdown},
	{Name: "text", Description: `plain-text transcript (">" lines, "User:"/"Assistant:", "用户："/"助手：")`, Read: readText},
	{Name: "jsonl", Description: "HuiMemory generic JSONL, one message per line", Read: readJSONL, Stream: streamJSONL},
}

// Names returns the names of the supported formats.
func Names() []string {
	out := make([]string, len(registry))
	for i, f := range registry {
		out[i] = f.Name
	}
	return out
}

// ErrUnknownFormat is wrapped by the errors of [Lookup] and [Detect].
var ErrUnknownFormat = errors.New("unknown format")

// Lookup returns the format with the given name.
func Lookup(name string) (*Format, error) {
	for _, f := range registry {
		if f.Name == name {
			return f, nil
		}
	}
	return nil, fmt.Errorf("formats: %w %q: supported formats are %s", ErrUnknownFormat, name, strings.Join(Names(), ", "))
}

// SniffLen is how many leading bytes [Detect] looks at.
const SniffLen = 64 << 10

// metadataFiles are the files of export bundles that hold no conversation
// (ChatGPT, Claude.ai and Slack exports). [IsMetadata] reports them.
var metadataFiles = map[string]bool{
	"users.json": true, "channels.json": true, "groups.json": true, "dms.json": true, "mpims.json": true,
	"integration_logs.json": true, "canvases.json": true, "huddles.json": true, "org_users.json": true,
	"user.json": true, "message_feedback.json": true, "shared_conversations.json": true,
	"model_comparisons.json": true, "projects.json": true, "memories.json": true,
}

// IsMetadata reports whether a file name is one of the metadata files of a
// ChatGPT, Claude.ai or Slack export (users.json, channels.json, ...),
// which hold no conversation and are skipped in folders.
func IsMetadata(name string) bool { return metadataFiles[strings.ToLower(filepath.Base(name))] }

// Regular expressions here are compiled on first use, so that a process
// that never needs them does not pay for them at init.
var slackDay = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}\.json$`) })

// Detect picks the format of a file from its name and its first bytes
// (up to [SniffLen]). It returns an error wrapping [ErrUnknownFormat],
// listing the supported formats, when nothing fits.
func Detect(name string, head []byte) (*Format, error) {
	if f := detect(name, head); f != "" {
		return Lookup(f)
	}
	return nil, &core.InputError{Path: name, Err: fmt.Errorf("%w: not a chat export HuiMemory knows; supported formats are %s (choose one with --format)",
		ErrUnknownFormat, strings.Join(Names(), ", "))}
}

func detect(name string, head []byte) string {
	base := strings.ToLower(filepath.Base(name))
	b := bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) == 0 {
		return ""
	}
	switch t[0] {
	case '{':
		if f := detectJSONL(t); f != "" {
			return f
		}
		if f := detectJSONDoc(base, t); f != "" || !strings.HasSuffix(base, ".jsonl") {
			return f
		}
		// A .jsonl file whose first line is not a complete object that
		// any format claims: read it as the generic JSONL, whose reader
		// names the bad line.
		return "jsonl"
	case '[':
		return detectJSONDoc(base, t)
	}
	if bytes.HasPrefix(t, []byte("# chat_")) && markdownHeader().Match(t) {
		return "markdown"
	}
	if isText(t) {
		return "text"
	}
	return ""
}

// detectJSONL looks at the first line when it is a complete JSON object.
func detectJSONL(t []byte) string {
	line, _, _ := bytes.Cut(t, []byte("\n"))
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil {
		return ""
	}
	has := func(k string) bool { _, ok := obj[k]; return ok }
	var typ string
	json.Unmarshal(obj["type"], &typ)
	switch {
	case has("mapping") && has("current_node"):
		return "chatgpt"
	case has("chat_messages"):
		return "claude"
	case has("sessionId") || (has("leafUuid") && typ == "summary") ||
		(has("message") && has("uuid") && (typ == "user" || typ == "assistant" || typ == "system")):
		return "claude-code"
	case has("payload") && (typ == "session_meta" || typ == "response_item" || typ == "event_msg" || typ == "turn_context"):
		return "codex"
	case has("id") && has("timestamp") && has("instructions"):
		return "codex" // the 2025 rollout format's first line
	case has("session") && has("text"):
		return "jsonl"
	}
	return ""
}

// detectJSONDoc sniffs a whole-file JSON document from its first bytes.
func detectJSONDoc(base string, t []byte) string {
	switch {
	case bytes.Contains(t, []byte(`"mapping"`)):
		return "chatgpt"
	case bytes.Contains(t, []byte(`"chat_messages"`)):
		return "claude"
	case t[0] == '[' && bytes.Contains(t, []byte(`"ts"`)) && (slackDay().MatchString(base) || bytes.Contains(t, []byte(`"type"`))):
		return "slack"
	case t[0] == '[' && len(bytes.TrimSpace(t)) >= 2 && bytes.Equal(bytes.TrimSpace(t)[:2], []byte("[]")) && slackDay().MatchString(base):
		return "slack"
	}
	return ""
}

// blank reports whether b holds nothing but a byte-order mark and space.
func blank(b []byte) bool {
	return len(bytes.TrimSpace(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))) == 0
}

// choose picks the format of the file called name whose first bytes are
// head: format when it is given, else the detected one. For the slack
// format it loads users.json from the export's root (the folder above the
// channel folder) into opts unless it is set.
func choose(name string, head []byte, format string, opts *Options) (f *Format, err error) {
	if format == "" {
		f, err = Detect(name, head)
	} else {
		f, err = Lookup(format)
	}
	if err != nil {
		return nil, err
	}
	if f.Name == "slack" && opts.SlackUsers == nil {
		users, err := SlackUsers(filepath.Join(filepath.Dir(filepath.Dir(name)), "users.json"))
		if err != nil {
			return f, err
		}
		opts.SlackUsers = users
	}
	return f, nil
}

// ReadFile reads the file at path in the named format, or detects the
// format when format is "". It returns the messages and the format used.
// For the slack format it loads users.json from the export's root (the
// folder above the channel folder) unless opts.SlackUsers is set. The
// result is all or nothing.
func ReadFile(path, format string, opts Options) ([]core.Message, *Format, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if opts.ModTime.IsZero() {
		if fi, err := os.Stat(path); err == nil {
			opts.ModTime = fi.ModTime()
		}
	}
	msgs, f, err := Read(data, path, format, opts)
	return msgs, f, err
}

// Read parses data, the content of the file called name, in the named
// format, or detects the format when format is "". An empty (or
// blank) file gives no messages, no format and no error.
func Read(data []byte, name, format string, opts Options) ([]core.Message, *Format, error) {
	if format == "" && blank(data) {
		return nil, nil, nil // an empty file holds no messages, whatever its format
	}
	f, err := choose(name, data[:min(len(data), SniffLen)], format, &opts)
	if err != nil {
		return nil, f, err
	}
	msgs, err := f.Read(bytes.NewReader(data), name, opts)
	if err != nil {
		return nil, f, err
	}
	return msgs, f, nil
}

// finish validates every message and fills in the default namespace.
// line, when not nil, gives the source line of message i for errors.
func finish(name string, msgs []core.Message, opts Options, line func(i int) int) ([]core.Message, error) {
	for i := range msgs {
		if msgs[i].Namespace == "" {
			msgs[i].Namespace = opts.Namespace
		}
		if err := msgs[i].Validate(); err != nil {
			l := 0
			if line != nil {
				l = line(i)
			}
			return nil, &core.InputError{Path: name, Line: l, Err: fmt.Errorf("message %d: %w", i+1, err)}
		}
	}
	return msgs, nil
}

// jsonDocError turns a whole-document JSON decoding error into an
// InputError with the line and byte offset.
func jsonDocError(name string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &core.InputError{Path: name, Line: lineAt(data, se.Offset), Err: fmt.Errorf("invalid JSON at byte offset %d: %v", se.Offset, se)}
	case errors.As(err, &te):
		return &core.InputError{Path: name, Line: lineAt(data, te.Offset), Err: fmt.Errorf("invalid JSON at byte offset %d: field %q must be %s, not %s", te.Offset, te.Field, te.Type, te.Value)}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &core.InputError{Path: name, Line: lineAt(data, int64(len(data))), Err: fmt.Errorf("invalid JSON at byte offset %d: unexpected end of file (truncated?)", len(data))}
	}
	return &core.InputError{Path: name, Err: fmt.Errorf("invalid JSON: %v", err)}
}

// decodeDoc decodes a whole JSON document and rejects trailing data.
func decodeDoc(name string, data []byte, v any) error {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return jsonDocError(name, data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		return &core.InputError{Path: name, Line: lineAt(data, off), Err: fmt.Errorf("unexpected data after the JSON document at byte offset %d", off)}
	}
	return nil
}

// lineAt returns the 1-based line holding byte offset off.
func lineAt(data []byte, off int64) int {
	off = max(0, min(off, int64(len(data))))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// jsonLines calls fn for each non-blank line of data with its 1-based
// number; it wraps fn's errors as InputErrors for that line.
func jsonLines(name string, data []byte, fn func(n int, line []byte) error) error {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	n := 0
	for len(data) > 0 {
		n++
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			var ie *core.InputError
			if errors.As(err, &ie) {
				return err
			}
			return &core.InputError{Path: name, Line: n, Err: err}
		}
	}
	return nil
}

// lineJSON decodes one JSONL line, with the column of a syntax error.
func lineJSON(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("invalid JSON at column %d: %v", se.Offset, se)
		case errors.As(err, &te):
			return fmt.Errorf("invalid JSON at column %d: field %q must be %s, not %s", te.Offset, te.Field, te.Type, te.Value)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return fmt.Errorf("invalid JSON: unexpected end of line (truncated?)")
		}
		return fmt.Errorf("invalid JSON: %v", err)
	}
	if dec.More() {
		return fmt.Errorf("unexpected data after the JSON object at column %d", dec.InputOffset()+1)
	}
	return nil
}

// parseRFC3339 reads an export's timestamp.
func parseRFC3339(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad timestamp %q: want RFC 3339", s)
	}
	return t, nil
}

// unixTime converts fractional Unix seconds to a time in loc, to the
// microsecond (exports carry no more).
func unixTime(sec float64, loc *time.Location) time.Time {
	us := int64(sec*1e6 + 0.5)
	if sec < 0 {
		us = int64(sec*1e6 - 0.5)
	}
	return time.UnixMicro(us).In(loc)
}
