package store

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// A recall reads the messages of its hits, and an assistant's reply is
// often kilobytes of text full of escapes (line breaks, quotes, code).
// encoding/json reads such a record three times (it validates the whole
// record, scans it again to decode, and unquotes each string into a
// buffer it then copies): about a twentieth of a one-shot recall's
// instructions on long BEAM questions. decodeMessage reads the records
// the store writes in one pass, and hands anything else to encoding/json,
// so that its result and its errors are encoding/json's.

// decodeMessage decodes a message record as json.Unmarshal into a
// Message does.
func decodeMessage(v []byte) (Message, error) {
	var m Message
	if parseMessage(v, &m) {
		return m, nil
	}
	m = Message{}
	err := json.Unmarshal(v, &m)
	return m, err
}

// parseMessage decodes v into m if it is a record of the shape the store
// writes: an object of Message's keys, spelled as its tags, with values
// of their types. It reports false for anything else, valid or not.
func parseMessage(v []byte, m *Message) bool {
	p := headParser{b: v}
	return p.object(func(key []byte) bool {
		var dst *string
		switch string(key) {
		case "n":
			dst = &m.NS
		case "s":
			dst = &m.Session
		case "t":
			dst = &m.Time
		case "r":
			dst = &m.Role
		case "p":
			dst = &m.Speaker
		case "x":
			dst = &m.Text
		case "f":
			dst = &m.Ref
		case "q":
			n, err := strconv.ParseUint(p.integer(false), 10, 64)
			m.Seq = n
			return err == nil
		case "l":
			n, err := strconv.Atoi(p.integer(true))
			m.Lines = n
			return err == nil
		case "z":
			var ok bool
			m.Sealed, ok = p.flag()
			return ok
		default:
			return false // another key, or another spelling of one
		}
		return p.quickInto(dst)
	})
}

// object reads the object at the cursor, the whole of what is left but
// white space, calling field with each key, unescaped (as the store
// writes keys), and the cursor at its value; field reads the value and
// reports whether it could. It reports false for anything else.
func (p *headParser) object(field func(key []byte) bool) bool {
	if !p.expect('{') {
		return false
	}
	if p.expect('}') {
		return p.end()
	}
	for {
		key, _, escaped, err := p.rawString()
		if err != nil || escaped || !p.expect(':') || !field(key) {
			return false
		}
		if p.expect(',') {
			continue
		}
		return p.expect('}') && p.end()
	}
}

// quickInto reads a JSON string into *dst, as quick reads it.
func (p *headParser) quickInto(dst *string) bool {
	s, ok := p.quick()
	*dst = s
	return ok
}

// flag reads a bare JSON true or false, reporting false for anything
// else.
func (p *headParser) flag() (v, ok bool) {
	switch p.token() {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// integer reads the bare value at the cursor if it is a JSON integer
// (digits without a leading zero, and a minus sign if signed allows one),
// or returns "", which no strconv parser takes.
func (p *headParser) integer(signed bool) string {
	tok := p.token()
	digits := tok
	if signed && strings.HasPrefix(digits, "-") {
		digits = digits[1:]
	}
	if digits == "" || len(digits) > 1 && digits[0] == '0' {
		return ""
	}
	for i := range len(digits) {
		if digits[i] < '0' || digits[i] > '9' {
			return ""
		}
	}
	return tok
}

// end reports whether only white space is left.
func (p *headParser) end() bool {
	p.ws()
	return p.i == len(p.b)
}

// token reads the bare value (number or literal) at the cursor.
func (p *headParser) token() string {
	p.ws()
	start := p.i
	for p.i < len(p.b) && !strings.ContainsRune(",}] \t\r\n", rune(p.b[p.i])) {
		p.i++
	}
	return string(p.b[start:p.i])
}

// quick reads a JSON string with unquote, reporting false where unquote
// cannot decide (or the string is not there).
func (p *headParser) quick() (string, bool) {
	raw, _, _, err := p.rawString()
	if err != nil {
		return "", false
	}
	return unquote(raw)
}

// unquote decodes the inside of a JSON string as encoding/json does. It
// reports false for what encoding/json would reject or replace: a
// control character, a bad escape, or bytes that are not UTF-8.
func unquote(s []byte) (string, bool) {
	clean := true
	for _, c := range s {
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			clean = false
			break
		}
	}
	if clean {
		return string(s), true
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 == len(s) {
				return "", false
			}
			switch s[i+1] {
			case '"', '\\', '/':
				b.WriteByte(s[i+1])
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r := hex4(s[i:])
				if r < 0 {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A pair makes one rune; a lone half is U+FFFD, as
					// encoding/json has it.
					if dec := utf16.DecodeRune(r, hex4(s[i:])); dec != unicode.ReplacementChar {
						b.WriteRune(dec)
						i += 6
						continue
					}
					r = unicode.ReplacementChar
				}
				b.WriteRune(r)
				continue
			default:
				return "", false
			}
			i += 2
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			// A run of plain ASCII goes in at once.
			j := i + 1
			for j < len(s) && s[j] != '\\' && s[j] >= 0x20 && s[j] < utf8.RuneSelf {
				j++
			}
			b.Write(s[i:j])
			i = j
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			b.Write(s[i : i+size])
			i += size
		}
	}
	return b.String(), true
}

// hex4 reads the escape \uXXXX at the start of s, or returns -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	n, err := strconv.ParseUint(string(s[2:6]), 16, 32)
	if err != nil {
		return -1
	}
	return rune(n)
}
