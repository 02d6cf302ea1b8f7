package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// RecallRequest holds recall_memory's arguments, under the names every
// interface uses. Now and NoTime are for programs (the HTTP API and
// `recall --json --batch`), not for the LLM's tool schema.
type RecallRequest struct {
	Query      string `json:"query"`
	FilterExpr string `json:"filter_expr,omitempty"`
	TopK       int    `json:"top_k,omitempty"`
	Since      string `json:"since,omitempty"`
	Before     string `json:"before,omitempty"`
	// ContextWindow is nil when the caller did not say; the dispatcher's
	// default applies then.
	ContextWindow *int   `json:"context_window,omitempty"`
	Namespace     string `json:"namespace,omitempty"`
	Now           string `json:"now,omitempty"`
	NoTime        bool   `json:"no_time,omitempty"`
}

// ByIDRequest holds recall_by_id's arguments.
type ByIDRequest struct {
	TurnID        string `json:"turn_id"`
	ContextWindow *int   `json:"context_window,omitempty"`
	Namespace     string `json:"namespace,omitempty"`
}

// RememberRequest holds remember's arguments: one message to store.
type RememberRequest struct {
	Text      string `json:"text"`
	Role      string `json:"role,omitempty"`
	Speaker   string `json:"speaker,omitempty"`
	Session   string `json:"session,omitempty"`
	Time      string `json:"time,omitempty"`
	Ref       string `json:"ref,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// Dialect says which argument names a decoder accepts.
type Dialect int

const (
	// DialectTool accepts exactly the tool schema's arguments: what an LLM
	// may send.
	DialectTool Dialect = iota
	// DialectAPI also accepts the program-only fields (now, no_time, ref)
	// and the older batch names "filter" (for filter_expr) and "context"
	// (for context_window).
	DialectAPI
)

// kinds of argument values.
type kind int

const (
	kString kind = iota
	kInt
	kBool
)

func (k kind) String() string {
	return [...]string{"a string", "an integer", "true or false"}[k]
}

// arg is one argument a decoder knows: its name, kind and destination.
type arg struct {
	name    string
	k       kind
	dst     any // *string, *int, **int or *bool
	apiOnly bool
	alias   string // an older name that means the same (API dialect only)
	nsArg   bool   // "namespace": accepted in the tool dialect only when allowed
}

// DecodeRecall parses recall_memory arguments. allowNamespace says whether
// the tool dialect accepts "namespace" (the API dialect always does; the
// dispatcher decides whether the caller may use it).
func DecodeRecall(raw []byte, d Dialect, allowNamespace bool) (RecallRequest, error) {
	var r RecallRequest
	err := decode(raw, d, allowNamespace, []arg{
		{name: "query", k: kString, dst: &r.Query},
		{name: "filter_expr", k: kString, dst: &r.FilterExpr, alias: "filter"},
		{name: "top_k", k: kInt, dst: &r.TopK},
		{name: "since", k: kString, dst: &r.Since},
		{name: "before", k: kString, dst: &r.Before},
		{name: "context_window", k: kInt, dst: &r.ContextWindow, alias: "context"},
		{name: "namespace", k: kString, dst: &r.Namespace, nsArg: true},
		{name: "now", k: kString, dst: &r.Now, apiOnly: true},
		{name: "no_time", k: kBool, dst: &r.NoTime, apiOnly: true},
	})
	return r, err
}

// DecodeByID parses recall_by_id arguments.
func DecodeByID(raw []byte, d Dialect, allowNamespace bool) (ByIDRequest, error) {
	var r ByIDRequest
	err := decode(raw, d, allowNamespace, []arg{
		{name: "turn_id", k: kString, dst: &r.TurnID},
		{name: "context_window", k: kInt, dst: &r.ContextWindow, alias: "context"},
		{name: "namespace", k: kString, dst: &r.Namespace, nsArg: true},
	})
	return r, err
}

// DecodeRemember parses remember arguments.
func DecodeRemember(raw []byte, d Dialect, allowNamespace bool) (RememberRequest, error) {
	var r RememberRequest
	err := decode(raw, d, allowNamespace, []arg{
		{name: "text", k: kString, dst: &r.Text},
		{name: "role", k: kString, dst: &r.Role},
		{name: "speaker", k: kString, dst: &r.Speaker},
		{name: "session", k: kString, dst: &r.Session},
		{name: "time", k: kString, dst: &r.Time},
		{name: "ref", k: kString, dst: &r.Ref, apiOnly: true},
		{name: "namespace", k: kString, dst: &r.Namespace, nsArg: true},
	})
	return r, err
}

// decode reads a JSON object strictly: unknown names, wrong types and
// duplicate names are errors that name the argument. A null value counts as
// absent, since strict-mode function calling sends null for optional
// arguments. Empty input means no arguments.
func decode(raw []byte, d Dialect, allowNamespace bool, args []arg) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		if raw[0] != '{' {
			return invalidf("arguments must be a JSON object")
		}
		return invalidf("arguments are not valid JSON: %v", err)
	}
	accepted := func(a arg) bool {
		return (!a.apiOnly || d == DialectAPI) && (!a.nsArg || d == DialectAPI || allowNamespace)
	}
	var known []string
	for _, a := range args {
		if accepted(a) {
			known = append(known, a.name)
		}
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	set := map[string]string{} // argument name → the key that set it
	for _, key := range names {
		i := slices.IndexFunc(args, func(a arg) bool {
			return accepted(a) && (a.name == key || (d == DialectAPI && a.alias != "" && a.alias == key))
		})
		if i < 0 {
			return invalidf("unknown argument %q (arguments: %s)", key, strings.Join(known, ", "))
		}
		a := args[i]
		if prev, dup := set[a.name]; dup {
			return invalidf("arguments %q and %q both set %s", prev, key, a.name)
		}
		set[a.name] = key
		if err := setValue(a, key, m[key]); err != nil {
			return err
		}
	}
	return nil
}

func setValue(a arg, key string, v json.RawMessage) error {
	if string(v) == "null" {
		return nil
	}
	bad := func() error { return invalidf("%s must be %s, not %s", key, a.k, clip(string(v), 40)) }
	switch a.k {
	case kString:
		var s string
		if json.Unmarshal(v, &s) != nil {
			return bad()
		}
		*a.dst.(*string) = s
	case kBool:
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return bad()
		}
		*a.dst.(*bool) = b
	case kInt:
		var f float64
		if json.Unmarshal(v, &f) != nil || f != math.Trunc(f) || math.Abs(f) > 1e9 {
			return bad()
		}
		switch p := a.dst.(type) {
		case *int:
			*p = int(f)
		case **int:
			n := int(f)
			*p = &n
		}
	}
	return nil
}

// clip shortens s to n runes for an error message.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func invalidf(format string, args ...any) error {
	return &Error{Code: CodeInvalidArguments, Message: fmt.Sprintf(format, args...)}
}
