package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/huimemory/huimemory/core"
)

// Message is a message as stored: the verbatim message plus what the store
// needs to order it, find it and lay it out in its transcript.
type Message struct {
	Seq     uint64 `json:"q"`
	NS      string `json:"n,omitempty"`
	Session string `json:"s"`
	// Time keeps the original offset, in RFC 3339 with nanoseconds.
	Time    string `json:"t"`
	Role    string `json:"r,omitempty"`
	Speaker string `json:"p,omitempty"`
	Text    string `json:"x,omitempty"`
	Ref     string `json:"f,omitempty"`
	// Lines is how many transcript lines the text takes.
	Lines int `json:"l"`
	// Sealed means the text lives only in its week's archive; Text is
	// empty.
	Sealed bool `json:"z,omitempty"`
}

// NewMessage converts a core message into a stored one.
func NewMessage(m *core.Message, seq uint64, lines int) *Message {
	return &Message{
		Seq: seq, NS: m.Namespace, Session: m.Session,
		Time: m.Time.Format(time.RFC3339Nano), Role: string(m.Role), Speaker: m.Speaker,
		Text: m.Text, Ref: m.Ref, Lines: lines,
	}
}

// Core converts a stored message back; its time keeps its offset.
func (m *Message) Core() (core.Message, error) {
	t, err := time.Parse(time.RFC3339Nano, m.Time)
	if err != nil {
		return core.Message{}, fmt.Errorf("message %d: bad time %q: %w", m.Seq, m.Time, err)
	}
	return core.Message{
		Namespace: m.NS, Session: m.Session, Time: t, Role: core.Role(m.Role),
		Speaker: m.Speaker, Text: m.Text, Ref: m.Ref,
	}, nil
}

// MsgRef points from a chunk at one of its session's messages.
type MsgRef struct {
	T int64  // Unix nanoseconds
	Q uint64 // arrival sequence
}

// MarshalJSON writes a MsgRef as [t, q].
func (r MsgRef) MarshalJSON() ([]byte, error) { return json.Marshal([2]uint64{uint64(r.T), r.Q}) }

// UnmarshalJSON reads a MsgRef written by MarshalJSON.
func (r *MsgRef) UnmarshalJSON(b []byte) error {
	var v [2]uint64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	r.T, r.Q = int64(v[0]), v[1]
	return nil
}

// Key returns the msgs key of the referenced message.
func (r MsgRef) Key(ns, session string) []byte {
	return MsgKey(ns, session, time.Unix(0, r.T), r.Q)
}

// Chunk is a chunk as stored. Its messages are references into msgs.
// The order of the fields is part of the record's format: ChunkHead reads
// prev, next, n, s, q and t and stops there (chunkhead.go).
type Chunk struct {
	ID      string        `json:"id"`
	Prev    string        `json:"prev,omitempty"`
	Next    string        `json:"next,omitempty"`
	Key     core.ChunkKey `json:"k"`
	NS      string        `json:"n,omitempty"`
	Session string        `json:"s"`
	// Asks is set on a chunk without roles whose last message is a
	// question: in a chat without roles, the next chunk is likely its
	// answer (see the engine's addContext). It precedes Time, so that
	// the chunk's head holds it.
	Asks      bool          `json:"q,omitempty"`
	Time      string        `json:"t"`
	End       string        `json:"e"`
	File      string        `json:"file"`
	LineStart int           `json:"ls"`
	LineEnd   int           `json:"le"`
	Msgs      []MsgRef      `json:"m"`
	Text      string        `json:"x,omitempty"`
	Section   string        `json:"sec,omitempty"`
	Topic     string        `json:"topic,omitempty"`
	Memories  []core.Memory `json:"mem,omitempty"`
	// Roles and Speakers are the distinct roles and authors of the chunk's
	// messages, for filters.
	Roles    []string `json:"roles,omitempty"`
	Speakers []string `json:"spk,omitempty"`
	// Hash is the sha256 of the chunk's content, so that an unchanged
	// chunk keeps its vector.
	Hash string `json:"h"`
	// PendingExtract names the extractors that failed on the chunk and
	// are to be retried (see pending.go).
	PendingExtract []string `json:"px,omitempty"`
}

// StartTime parses the chunk's time.
func (c *Chunk) StartTime() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, c.Time)
	return t
}

// Session is what the store knows of one session.
type Session struct {
	NS      string `json:"n,omitempty"`
	Session string `json:"s"`
	File    string `json:"file"`
	First   string `json:"first"`
	Last    string `json:"last"`
	Count   int    `json:"count"`
	Chunks  int    `json:"chunks"`
	// Stale lists transcript files the session used to live in, to be
	// removed when its transcript is next written.
	Stale []string `json:"stale,omitempty"`
	// Stage, when set, is the staged ingest that wrote the record before
	// its publication (stage.go): while that stage is open,
	// readers pass the session by.
	Stage string `json:"stage,omitempty"`
}

// EncodeVector writes v as little-endian float32s.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// DecodeVector reads a vector written by EncodeVector into dst, which it
// grows as needed, and returns it.
func DecodeVector(dst []float32, b []byte) []float32 {
	n := len(b) / 4
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return dst
}

// AppendVector appends the vector written by EncodeVector to dst.
func AppendVector(dst []float32, b []byte) []float32 {
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst
}
