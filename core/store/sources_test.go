package store

import (
	"bytes"
	"slices"
	"testing"

	"github.com/huimemory/huimemory/core"
)

func msgKey(b byte) core.MessageKey {
	var k core.MessageKey
	for i := range k {
		k[i] = b ^ byte(i*7)
	}
	return k
}

// TestClaims checks the claims of sources on messages (sources.go): in
// the numbered form written since schema version 4, in the form written
// before it, and both in one store.
func TestClaims(t *testing.T) {
	a, b := "/data/a.jsonl", "/data/b.jsonl"
	k1, k2, k3 := msgKey(0xf0), msgKey(0x10), msgKey(0x80)
	type step struct {
		op   string // claim, unclaim, old (a claim written as before version 4)
		src  string
		k    core.MessageKey
		want map[string][]core.MessageKey // each source's messages after the step
	}
	for _, tt := range []struct {
		name  string
		steps []step
	}{
		{"claims are listed in the order they were made", []step{
			{"claim", a, k1, map[string][]core.MessageKey{a: {k1}}},
			{"claim", a, k2, map[string][]core.MessageKey{a: {k1, k2}}},
			{"claim", a, k3, map[string][]core.MessageKey{a: {k1, k2, k3}}},
		}},
		{"a claim made twice is kept once", []step{
			{"claim", a, k1, map[string][]core.MessageKey{a: {k1}}},
			{"claim", a, k2, map[string][]core.MessageKey{a: {k1, k2}}},
			{"claim", a, k1, map[string][]core.MessageKey{a: {k1, k2}}},
		}},
		{"sources claim apart", []step{
			{"claim", a, k1, map[string][]core.MessageKey{a: {k1}}},
			{"claim", b, k1, map[string][]core.MessageKey{a: {k1}, b: {k1}}},
			{"unclaim", a, k1, map[string][]core.MessageKey{a: nil, b: {k1}}},
			{"unclaim", b, k1, map[string][]core.MessageKey{a: nil, b: nil}},
		}},
		// The old claims come first, in message key order (k3 < k1).
		{"claims made before version 4 are read, kept and dropped", []step{
			{"old", a, k1, map[string][]core.MessageKey{a: {k1}}},
			{"old", a, k3, map[string][]core.MessageKey{a: {k3, k1}}},
			{"claim", a, k3, map[string][]core.MessageKey{a: {k3, k1}}},
			{"claim", a, k2, map[string][]core.MessageKey{a: {k3, k1, k2}}},
			{"claim", b, k1, map[string][]core.MessageKey{a: {k3, k1, k2}, b: {k1}}},
			{"unclaim", a, k3, map[string][]core.MessageKey{a: {k1, k2}, b: {k1}}},
			{"unclaim", a, k1, map[string][]core.MessageKey{a: {k2}, b: {k1}}},
			{"unclaim", a, k2, map[string][]core.MessageKey{a: nil, b: {k1}}},
			{"unclaim", b, k1, map[string][]core.MessageKey{a: nil, b: nil}},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			for i, st := range tt.steps {
				err := s.Update(func(tx *Tx) error {
					switch st.op {
					case "claim":
						return tx.ClaimMessage(st.src, st.k)
					case "unclaim":
						return tx.UnclaimMessage(st.src, st.k)
					default: // the form written before schema version 4
						if err := tx.ensureSourceBuckets(); err != nil {
							return err
						}
						if err := tx.put(bSrcMsgs, oldSrcMsgKey(st.src, st.k), nil); err != nil {
							return err
						}
						return tx.put(bMsgSrcs, msgSrcKey(st.src, st.k), nil)
					}
				})
				if err != nil {
					t.Fatalf("step %d (%s): %v", i+1, st.op, err)
				}
				s.View(func(tx *Tx) error {
					claimers := map[core.MessageKey][]string{}
					for src, want := range st.want {
						if got := tx.SourceMessages(src); !slices.Equal(got, want) {
							t.Errorf("step %d (%s %s %x): %s claims %x, want %x", i+1, st.op, st.src, st.k[:2], src, got, want)
						}
						for _, k := range want {
							claimers[k] = append(claimers[k], src)
						}
					}
					for _, k := range []core.MessageKey{k1, k2, k3} {
						got, want := tx.MessageClaimers(k), claimers[k]
						slices.Sort(got)
						slices.Sort(want)
						if !slices.Equal(got, want) {
							t.Errorf("step %d (%s %s %x): message %x is claimed by %q, want %q", i+1, st.op, st.src, st.k[:2], k[:2], got, want)
						}
					}
					return nil
				})
			}
			// Every claim was dropped or is listed: nothing is left over.
			s.View(func(tx *Tx) error {
				n := 0
				for _, want := range tt.steps[len(tt.steps)-1].want {
					n += len(want)
				}
				for _, name := range [][]byte{bSrcMsgs, bMsgSrcs} {
					if got := tx.b(name).KeyN(); got != n {
						t.Errorf("%s holds %d entries, want %d", name, got, n)
					}
				}
				return nil
			})
		})
	}
}

// TestClaimsAppend checks that a source's claims go at the end of its part
// of srcmsgs, whatever their message keys: a large ingest's claims then
// fill pages in order rather than rewriting pages all over the bucket.
func TestClaimsAppend(t *testing.T) {
	s := openTest(t)
	src := "/data/big.jsonl"
	var claimed []core.MessageKey
	for i := range 200 {
		k := msgKey(byte(i * 37))
		k[5] = byte(i) // distinct
		claimed = append(claimed, k)
		if err := s.Update(func(tx *Tx) error { return tx.ClaimMessage(src, k) }); err != nil {
			t.Fatal(err)
		}
	}
	s.View(func(tx *Tx) error {
		var vals [][]byte
		tx.b(bSrcMsgs).ForEach(func(_, v []byte) error {
			vals = append(vals, bytes.Clone(v))
			return nil
		})
		if len(vals) != len(claimed) {
			t.Fatalf("srcmsgs holds %d claims, want %d", len(vals), len(claimed))
		}
		for i, k := range claimed {
			if !bytes.Equal(vals[i], k[:]) {
				t.Fatalf("claim %d is not where it was appended", i+1)
			}
		}
		return nil
	})
}
