package store

import (
	"bytes"
	"encoding/json"
	"time"
)

// VectorChannel is the channel on which a store in a shared [KV] (one
// that is a [Notifier]) tells other processes what a transaction changed,
// so that they drop what they cache of it. Every transaction that starts
// a new generation (see [Tx.BumpGen]) or writes vectors sends a
// [Notice]; the JSON string "reset" means every cached vector must go.
const VectorChannel = "huimem_vectors"

// Notice is the payload of a [VectorChannel] notification: the store's
// generation after the transaction, and the namespaces and days whose
// vectors it changed. A process that has heard generation G knows that
// what it caches is no older than G (see core/engine's backend.go).
type Notice struct {
	Gen     uint64         `json:"gen"`
	Changes []VectorChange `json:"changes"`
}

// maxNotify bounds a payload; PostgreSQL takes up to 8000 bytes.
const maxNotify = 7900

// VectorChange is one element of a [VectorChannel] payload.
type VectorChange struct {
	NS string    `json:"ns"`
	T  time.Time `json:"t"`
}

// noteVectors queues the notification of this transaction's generation
// and of the vectors it writes (they all go through the vectime bucket's
// pending writes), for a store in a KV that can notify. A change of
// namespace "*" stands for every vector (a payload too large to send).
func (t *Tx) noteVectors() error {
	if _, ok := t.kv.(Notifier); !ok {
		return nil
	}
	if t.vecReset {
		return t.Notify(VectorChannel, `"reset"`)
	}
	seen := map[VectorChange]bool{}
	var changes []VectorChange
	for k := range t.buf[string(bVecTime)] {
		i := bytes.IndexByte([]byte(k), 0)
		if i < 0 || len(k) < i+9 {
			continue
		}
		day := time.Unix(0, TimeFromKey([]byte(k[i+1:i+9]))).UTC().Truncate(24 * time.Hour)
		c := VectorChange{NS: k[:i], T: day}
		if !seen[c] {
			seen[c] = true
			changes = append(changes, c)
		}
	}
	if len(changes) == 0 && !t.bumped {
		return nil
	}
	gen := t.gen
	if !t.bumped {
		gen = t.Gen()
	}
	data, err := json.Marshal(Notice{Gen: gen, Changes: changes})
	if err != nil || len(data) > maxNotify {
		data, _ = json.Marshal(Notice{Gen: gen, Changes: []VectorChange{{NS: "*"}}})
	}
	return t.Notify(VectorChannel, string(data))
}
