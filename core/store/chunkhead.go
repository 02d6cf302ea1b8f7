package store

import (
	"encoding/json"
	"fmt"
	"time"
)

// parseChunkHead reads the head of a chunk record (the JSON of [Chunk])
// without decoding the rest: recall reads the links of a few hundred
// chunks per query (the neighbour context), and a chunk's messages make
// up most of its record. The record's fields come in [Chunk]'s order, so
// the head's (prev, next, n, s, q, t) all precede the messages; parsing
// stops at "t". A string with escapes is decoded by encoding/json; other
// fields are skipped. Errors give the byte offset.
func parseChunkHead(v []byte) (ChunkHead, error) {
	var h ChunkHead
	p := headParser{b: v}
	if !p.expect('{') {
		return h, p.err("expected '{'")
	}
	for {
		if p.expect('}') {
			return h, nil
		}
		key, err := p.str()
		if err != nil {
			return h, err
		}
		if !p.expect(':') {
			return h, p.err("expected ':'")
		}
		var dst *string
		switch key {
		case "prev":
			dst = &h.Prev
		case "next":
			dst = &h.Next
		case "n":
			dst = &h.NS
		case "s":
			dst = &h.Session
		case "q":
			if h.Asks, err = p.boolean(); err != nil {
				return h, err
			}
			if !p.expect(',') && !p.peek('}') {
				return h, p.err("expected ',' or '}'")
			}
			continue
		case "t":
			ts, err := p.str()
			if err != nil {
				return h, err
			}
			if h.Time, err = time.Parse(time.RFC3339Nano, ts); err != nil {
				return h, fmt.Errorf("time at byte %d: %w", p.i, err)
			}
			return h, nil
		}
		if dst != nil {
			if *dst, err = p.str(); err != nil {
				return h, err
			}
		} else if err := p.skip(); err != nil {
			return h, err
		}
		if !p.expect(',') && !p.peek('}') {
			return h, p.err("expected ',' or '}'")
		}
	}
}

// headParser is a cursor over one JSON record.
type headParser struct {
	b []byte
	i int
}

func (p *headParser) err(msg string) error {
	return fmt.Errorf("%s at byte %d", msg, p.i)
}

func (p *headParser) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

// peek reports whether the next byte after white space is c.
func (p *headParser) peek(c byte) bool {
	p.ws()
	return p.i < len(p.b) && p.b[p.i] == c
}

// expect consumes c if it is the next byte after white space.
func (p *headParser) expect(c byte) bool {
	if p.peek(c) {
		p.i++
		return true
	}
	return false
}

// str reads a JSON string.
func (p *headParser) str() (string, error) {
	raw, start, escaped, err := p.rawString()
	if err != nil {
		return "", err
	}
	if !escaped {
		return string(raw), nil
	}
	if s, ok := unquote(raw); ok {
		return s, nil
	}
	var s string
	if err := json.Unmarshal(p.b[start:p.i], &s); err != nil {
		return "", fmt.Errorf("string at byte %d: %w", start, err)
	}
	return s, nil
}

// rawString reads a JSON string and returns its inside undecoded, the
// offset of its opening quote, and whether it holds an escape.
func (p *headParser) rawString() (raw []byte, start int, escaped bool, err error) {
	if !p.peek('"') {
		return nil, 0, false, p.err("expected a string")
	}
	start = p.i
	for p.i++; p.i < len(p.b); p.i++ {
		switch p.b[p.i] {
		case '\\':
			escaped = true
			p.i++
		case '"':
			p.i++
			return p.b[start+1 : p.i-1], start, escaped, nil
		}
	}
	p.i = start
	return nil, 0, false, p.err("unterminated string")
}

// skip passes over one JSON value of any kind. Values are not validated
// beyond their nesting: parseChunkHead reads records the store wrote.
func (p *headParser) skip() error {
	p.ws()
	if p.i >= len(p.b) {
		return p.err("expected a value")
	}
	switch p.b[p.i] {
	case '"':
		_, err := p.str()
		return err
	case '{', '[':
		depth := 0
		for p.i < len(p.b) {
			switch p.b[p.i] {
			case '"':
				if _, err := p.str(); err != nil {
					return err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					p.i++
					return nil
				}
			}
			p.i++
		}
		return p.err("unterminated value")
	}
	if p.token() == "" {
		return p.err("expected a value")
	}
	return nil
}

// boolean reads a JSON true or false.
func (p *headParser) boolean() (bool, error) {
	p.ws()
	for _, lit := range []string{"true", "false"} {
		if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
			p.i += len(lit)
			return lit == "true", nil
		}
	}
	return false, p.err("expected true or false")
}
