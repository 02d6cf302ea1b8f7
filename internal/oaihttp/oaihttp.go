package oaihttp

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Endpoint returns the URL of path (such as "embeddings" or
// "chat/completions") for a base URL: the base itself when it already ends
// in path, base+"/"+path when it ends in /v1, else base+"/v1/"+path. who
// names the caller in errors.
func Endpoint(who, base, path string) (string, error) {
	base = strings.TrimSpace(base)
	if base == "" {
		return "", fmt.Errorf("%s: missing base URL", who)
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s: base URL %q is not an http(s) URL", who, RedactURL(base))
	}
	p := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/"+path):
	case strings.HasSuffix(p, "/v1"):
		p += "/" + path
	default:
		p += "/v1/" + path
	}
	u.Path, u.RawPath = p, ""
	return u.String(), nil
}

// RedactURL hides a password in a URL, for messages.
func RedactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return s
}

// Backoff returns the jittered wait before retry attempt+1: between half
// and all of delay·2^attempt, and at most maxDelay.
func Backoff(attempt int, delay, maxDelay time.Duration) time.Duration {
	d := maxDelay
	if attempt < 30 {
		d = min(delay<<attempt, d)
	}
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// RetryAfter returns the wait a Retry-After header asks for, in seconds or
// as an HTTP date, at most maxDelay; 0 when there is none.
func RetryAfter(h string, maxDelay time.Duration) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	var d time.Duration
	if s, err := strconv.ParseInt(h, 10, 64); err == nil {
		if s <= 0 {
			return 0
		}
		d = maxDelay
		if s < int64(d/time.Second)+1 {
			d = time.Duration(s) * time.Second
		}
	} else if t, err := http.ParseTime(h); err == nil {
		d = time.Until(t)
	}
	if d <= 0 {
		return 0
	}
	return min(d, maxDelay)
}

// ServerMessage finds the message in an error answer: OpenAI's
// {"error": {"message": ...}}, Ollama's and TEI's {"error": "..."}, vLLM's
// {"message": ...} or FastAPI's {"detail": ...}; else the start of the
// answer. It is folded onto one line and cut at maxRunes.
func ServerMessage(raw []byte, maxRunes int) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	msg := ""
	if json.Unmarshal(raw, &v) == nil {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			msg = s
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			msg = obj.Message
		case v.Message != "":
			msg = v.Message
		case json.Unmarshal(v.Detail, &s) == nil && s != "":
			msg = s
		case len(v.Detail) > 0:
			msg = string(v.Detail)
		}
	}
	if msg == "" {
		msg = string(raw)
	}
	return Fold(msg, maxRunes)
}

// Fold puts s on one line, with invalid UTF-8 replaced, cut at maxRunes
// with "…".
func Fold(s string, maxRunes int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if utf8.RuneCountInString(s) > maxRunes {
		s = string([]rune(s)[:maxRunes]) + "…"
	}
	return s
}

// Sleep waits for d or until ctx is done.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
