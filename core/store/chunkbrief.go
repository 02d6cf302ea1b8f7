package store

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/huimemory/huimemory/core"
)

// Planning a session's chunks again (an append to a long session) reads
// every chunk record of the session but for its text and message
// references. decodeChunkBrief reads the records the store writes in one
// pass, passing those two fields by without decoding them, and hands
// anything else to encoding/json, so that its result and its errors are
// encoding/json's decoding into a chunkBrief.

// decodeChunkBrief decodes a chunk record as json.Unmarshal into a
// chunkBrief does: every field of the chunk but Text and Msgs.
func decodeChunkBrief(v []byte) (Chunk, error) {
	var c Chunk
	if parseChunkBrief(v, &c) {
		return c, nil
	}
	var b chunkBrief
	err := json.Unmarshal(v, &b)
	return b.Chunk, err
}

// chunkBrief decodes a stored chunk but for its text and message
// references, which its own fields, named as theirs, pass by.
type chunkBrief struct {
	Chunk
	Msgs passBy `json:"m"`
	Text passBy `json:"x"`
}

// passBy is a JSON value that decoding passes by.
type passBy struct{}

func (*passBy) UnmarshalJSON([]byte) error { return nil }

// parseChunkBrief decodes v into c, leaving Text and Msgs empty, if it is
// a record of the shape the store writes: an object of Chunk's keys,
// spelled as its tags, with values of their types. It reports false for
// anything else, valid or not.
func parseChunkBrief(v []byte, c *Chunk) bool {
	p := headParser{b: v}
	return p.object(func(key []byte) bool {
		var dst *string
		switch string(key) {
		case "id":
			dst = &c.ID
		case "prev":
			dst = &c.Prev
		case "next":
			dst = &c.Next
		case "n":
			dst = &c.NS
		case "s":
			dst = &c.Session
		case "t":
			dst = &c.Time
		case "e":
			dst = &c.End
		case "file":
			dst = &c.File
		case "sec":
			dst = &c.Section
		case "topic":
			dst = &c.Topic
		case "h":
			dst = &c.Hash
		case "k":
			s, ok := p.quick()
			return ok && c.Key.UnmarshalText([]byte(s)) == nil
		case "q":
			var ok bool
			c.Asks, ok = p.flag()
			return ok
		case "ls", "le":
			n, err := strconv.Atoi(p.integer(true))
			if string(key) == "ls" {
				c.LineStart = n
			} else {
				c.LineEnd = n
			}
			return err == nil
		case "m":
			if p.peek('n') {
				return p.token() == "null"
			}
			return p.passMsgRefs()
		case "x":
			return p.passString()
		case "roles", "spk", "px":
			ss, ok := p.strings()
			switch string(key) {
			case "roles":
				c.Roles = ss
			case "spk":
				c.Speakers = ss
			default:
				c.PendingExtract = ss
			}
			return ok
		case "mem":
			p.ws()
			start := p.i
			if !p.peek('[') || p.skip() != nil {
				return false
			}
			var mem []core.Memory
			if json.Unmarshal(p.b[start:p.i], &mem) != nil {
				return false
			}
			c.Memories = mem
			return true
		default:
			return false // another key, or another spelling of one
		}
		return p.quickInto(dst)
	})
}

// strings reads a JSON array of strings, as quick reads each.
func (p *headParser) strings() ([]string, bool) {
	if !p.expect('[') {
		return nil, false
	}
	out := []string{}
	if p.expect(']') {
		return out, true
	}
	for {
		s, ok := p.quick()
		if !ok {
			return nil, false
		}
		out = append(out, s)
		if p.expect(',') {
			continue
		}
		return out, p.expect(']')
	}
}

// passMsgRefs passes over an array of message references as MsgRef
// writes them, [t, q] with t and q unsigned integers.
func (p *headParser) passMsgRefs() bool {
	if !p.expect('[') {
		return false
	}
	if p.expect(']') {
		return true
	}
	for {
		if !p.expect('[') {
			return false
		}
		for i := range 2 {
			if !p.passUint() {
				return false
			}
			if i == 0 && !p.expect(',') {
				return false
			}
		}
		if !p.expect(']') {
			return false
		}
		if p.expect(',') {
			continue
		}
		return p.expect(']')
	}
}

// passUint passes over a JSON number if it is an integer that a uint64
// holds: digits without a leading zero, at most 18446744073709551615.
func (p *headParser) passUint() bool {
	p.ws()
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	d := p.b[start:p.i]
	switch {
	case len(d) == 0 || len(d) > 1 && d[0] == '0' || len(d) > 20:
		return false
	case len(d) == 20 && string(d) > "18446744073709551615":
		return false
	}
	// A number goes on with a fraction or an exponent.
	return p.i == len(p.b) || !strings.ContainsRune(".eE", rune(p.b[p.i]))
}

// passString passes over a JSON string if it is valid JSON and UTF-8:
// no control characters and only JSON's escapes, as encoding/json
// writes every string.
func (p *headParser) passString() bool {
	if !p.peek('"') {
		return false
	}
	start := p.i + 1
	b := p.b
	for i := start; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			p.i = i + 1
			return utf8.Valid(b[start:i])
		case c < 0x20:
			return false
		case c == '\\':
			if i++; i == len(b) {
				return false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+5 > len(b) {
					return false
				}
				for _, h := range b[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				i += 4
			default:
				return false
			}
		}
	}
	return false
}
