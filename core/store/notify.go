package store

import (
	"bytes"
	"encoding/json"
	"time"
)

// VectorChannel is the channel on which a store in a shared [KV] (one
// that is a [Notifier]) tells other processes which vectors a transaction
// changed, so that they drop what they cache of them. The payload is a
// JSON list of {"ns": namespace, "t": time} (one per namespace and day
// touched), or the JSON string "reset" when every cached vector must go.
const VectorChannel = "huimem_vectors"

// maxNotify bounds a payload; PostgreSQL takes up to 8000 bytes.
const maxNotify = 7900

// VectorChange is one element of a [VectorChannel] payload.
type VectorChange struct {
	NS string    `json:"ns"`
	T  time.Time `json:"t"`
}

// noteVectors queues the notification of the vectors this transaction
// writes (they all go through the vectime bucket's pending writes), for a
// store in a KV that can notify.
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
	if len(changes) == 0 {
		return nil
	}
	data, err := json.Marshal(changes)
	if err != nil || len(data) > maxNotify {
		data = []byte(`"reset"`)
	}
	return t.Notify(VectorChannel, string(data))
}
