package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// object is a JSON object with its members in the order of the file, so
// that a settings file is written back with the user's keys where they
// were. Values are kept as the raw bytes they were read as.
type object []member

type member struct {
	key   string
	value json.RawMessage
}

// parseObject reads a JSON object; what names the document in errors.
// Empty input (a file that is missing or blank) is an empty object.
func parseObject(data []byte, what string) (object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return object{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %v", what, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%s is not a JSON object", what)
	}
	o := object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%s is not valid JSON: %v", what, err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s is not valid JSON: %v", what, err)
		}
		o = append(o, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %v", what, err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("%s is not valid JSON: data after the object", what)
	}
	return o, nil
}

// get returns the value of the first member named key.
func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// set replaces the value of the member named key where it is, or appends
// the member.
func (o *object) set(key string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].value = v
			return
		}
	}
	*o = append(*o, member{key, v})
}

// remove drops the members named key.
func (o *object) remove(key string) {
	out := (*o)[:0]
	for _, m := range *o {
		if m.key != key {
			out = append(out, m)
		}
	}
	*o = out
}

// raw returns the object as compact JSON.
func (o object) raw() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// subObject reads the member key of o as an object (an empty one when o
// has no such member); path names it in errors.
func (o object) subObject(key, path string) (object, error) {
	v, ok := o.get(key)
	if !ok {
		return object{}, nil
	}
	sub, err := parseObject(v, path)
	if err != nil {
		return nil, fmt.Errorf("%s must be a JSON object", path)
	}
	return sub, nil
}

// array reads v as a JSON array; path names it in errors.
func array(v json.RawMessage, path string) ([]json.RawMessage, error) {
	var a []json.RawMessage
	if err := json.Unmarshal(v, &a); err != nil || a == nil {
		return nil, fmt.Errorf("%s must be a JSON array", path)
	}
	return a, nil
}

// rawArray returns a as compact JSON.
func rawArray(a []json.RawMessage) json.RawMessage {
	if len(a) == 0 {
		return json.RawMessage("[]")
	}
	b, _ := json.Marshal(a)
	return b
}

// format renders a document as settings files are written: two-space
// indentation, members in order, strings and numbers as they were read
// (JSON.stringify(v, null, 2) writes Claude Code's files the same way),
// and a final newline when the original had one or there was none.
func format(doc json.RawMessage, original []byte) ([]byte, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(original)) == 0 || bytes.HasSuffix(original, []byte("\n")) {
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}
