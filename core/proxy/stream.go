package proxy

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// sse writes server-sent events to the host.
type sse struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	c       *call
	started bool
	// id is the first chunk's id: chunks of later rounds get it too, so
	// that the host sees one completion.
	id     string
	answer strings.Builder
}

type pendingChunk struct {
	data    []byte
	id      string
	content string
}

func (s *sse) start() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	s.c.setHeaders(s.w)
	s.w.WriteHeader(http.StatusOK)
}

func (s *sse) send(p pendingChunk) {
	s.start()
	data := p.data
	if s.id == "" {
		s.id = p.id
	} else if p.id != s.id {
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) == nil {
			m["id"], _ = json.Marshal(s.id)
			if b, err := json.Marshal(m); err == nil {
				data = b
			}
		}
	}
	s.answer.WriteString(p.content)
	fmt.Fprintf(s.w, "data: %s\n\n", data)
	s.rc.Flush()
}

func (s *sse) done() {
	s.start()
	io.WriteString(s.w, "data: [DONE]\n\n")
	s.rc.Flush()
}

// fail reports err: as an error response before the stream started, as
// an error event after.
func (s *sse) fail(err error) {
	if !s.started {
		writeError(s.w, err)
		return
	}
	e, ok := err.(*Error)
	if !ok {
		e = internal(err)
	}
	b, _ := json.Marshal(ErrorBody{Error: e})
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	s.rc.Flush()
}

// roundResult is one upstream stream, read to its end.
type roundResult struct {
	// content is the round's text, calls its tool calls, pending the
	// chunks not yet sent to the host.
	content string
	calls   []toolCall
	pending []pendingChunk
}

// round reads one upstream stream, sending the chunks that may go to the
// host as they arrive.
func (s *sse) round(body io.Reader) (roundResult, error) {
	var res roundResult
	var content strings.Builder
	calls := map[int]*toolCall{}
	var order []int
	toolSeen, holding := false, true

	handle := func(data []byte) (bool, error) {
		if string(data) == "[DONE]" {
			return true, nil
		}
		var ch chunk
		if err := json.Unmarshal(data, &ch); err != nil {
			return false, &Error{Status: http.StatusBadGateway, Type: typeUpstream, Code: CodeBadUpstreamResponse,
				Message: fmt.Sprintf("the upstream's stream has an event that is not a chat completion chunk: %.200s", data)}
		}
		if len(ch.Error) > 0 && string(ch.Error) != "null" {
			return false, &Error{Status: http.StatusBadGateway, Type: typeUpstream, Code: CodeUpstreamError,
				Message: fmt.Sprintf("the upstream model failed while streaming: %.500s", ch.Error)}
		}
		p := pendingChunk{data: data, id: ch.ID}
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				continue
			}
			d := choice.Delta
			p.content += d.Content
			for _, td := range d.ToolCalls {
				toolSeen = true
				tc := calls[td.Index]
				if tc == nil {
					tc = &toolCall{Type: "function"}
					calls[td.Index] = tc
					order = append(order, td.Index)
				}
				if td.ID != "" {
					tc.ID = td.ID
				}
				if tc.Function.Name == "" {
					tc.Function.Name = td.Function.Name
				}
				tc.Function.Arguments += td.Function.Arguments
			}
			if d.Refusal != "" && !toolSeen {
				holding = false
			}
		}
		content.WriteString(p.content)
		switch {
		case toolSeen:
			res.pending = append(res.pending, p)
		case p.content != "" || !holding:
			for _, q := range res.pending {
				s.send(q)
			}
			res.pending = nil
			s.send(p)
			holding = false
		default:
			res.pending = append(res.pending, p)
		}
		return false, nil
	}

	br := bufio.NewReader(body)
	var data []byte
	hasData := false
	// line handles one line of the stream; true means the stream ended.
	line := func(l string) (bool, error) {
		l = strings.TrimRight(l, "\r\n")
		switch {
		case l == "":
			if !hasData {
				return false, nil
			}
			end, err := handle(data)
			data, hasData = nil, false
			return end, err
		case strings.HasPrefix(l, ":"): // a comment
		default:
			field, value, _ := strings.Cut(l, ":")
			if field == "data" {
				if hasData {
					data = append(data, '\n')
				}
				data = append(data, strings.TrimPrefix(value, " ")...)
				hasData = true
			}
		}
		return false, nil
	}
	for {
		l, rerr := br.ReadString('\n')
		if l != "" {
			end, err := line(l)
			if err != nil {
				return res, err
			}
			if end {
				break
			}
		}
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) {
				return res, rerr
			}
			// A stream that ends without [DONE] or a last blank line.
			if _, err := line(""); err != nil {
				return res, err
			}
			break
		}
	}
	res.content = content.String()
	for _, i := range order {
		res.calls = append(res.calls, *calls[i])
	}
	return res, nil
}
