package index

import (
	"slices"
	"testing"
	"time"
)

// TestPinHidesLaterBatches checks that a pinned index reads as it was
// when pinned, in every kind of read, while batches go on being written,
// and reads everything once unpinned.
func TestPinHidesLaterBatches(t *testing.T) {
	x := openTest(t)
	base := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	if err := x.Apply([]Doc{{ID: "aaaaaa", Time: base, Text: "deploy the local model"}}, nil, 1); err != nil {
		t.Fatal(err)
	}
	if err := x.Pin(); err != nil {
		t.Fatal(err)
	}
	if err := x.Pin(); err == nil {
		t.Error("a second Pin succeeded")
	}
	later := []Doc{
		{ID: "bbbbbb", Time: base, Text: "a trip to kyoto"},
		{ID: "cccccc", Time: base, Text: "kyoto in spring, deploy later"},
	}
	if err := x.Apply(later, nil, 1); err != nil {
		t.Fatal(err)
	}
	if err := x.Apply(nil, []string{"aaaaaa"}, 2); err != nil {
		t.Fatal(err)
	}
	type view struct {
		count   uint64
		kyoto   []string
		deploy  []string
		idfN    uint64
		present [][]uint8
	}
	read := func() view {
		t.Helper()
		var v view
		var err error
		if v.count, err = x.Count(); err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct {
			text string
			out  *[]string
		}{{"kyoto", &v.kyoto}, {"deploy", &v.deploy}} {
			ms, err := x.Search(t.Context(), Search{Text: q.text, Size: 10, NoSession: true})
			if err != nil {
				t.Fatal(err)
			}
			*q.out = matchIDs(ms)
			slices.Sort(*q.out)
		}
		if _, v.idfN, err = x.IDF(t.Context(), []string{"kyoto"}); err != nil {
			t.Fatal(err)
		}
		if v.present, err = x.Presence(t.Context(), []string{"aaaaaa", "bbbbbb"}, []string{"deploy", "kyoto"}); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tt := range []struct {
		name string
		do   func()
		want view
	}{
		{"pinned", func() {}, view{count: 1, deploy: []string{"aaaaaa"}, idfN: 1,
			present: [][]uint8{{InChunk, Absent}, {Absent, Absent}}}},
		{"unpinned", x.Unpin, view{count: 2, kyoto: []string{"bbbbbb", "cccccc"}, deploy: []string{"cccccc"}, idfN: 2,
			present: [][]uint8{{Absent, Absent}, {Absent, InChunk}}}},
	} {
		tt.do()
		got := read()
		if got.count != tt.want.count || !slices.Equal(got.kyoto, tt.want.kyoto) || !slices.Equal(got.deploy, tt.want.deploy) ||
			got.idfN != tt.want.idfN || !slices.EqualFunc(got.present, tt.want.present, slices.Equal) {
			t.Errorf("%s: reads %+v, want %+v", tt.name, got, tt.want)
		}
		// The generation is the latest batch's, pinned or not.
		if g, err := x.Gen(); err != nil || g != 2 {
			t.Errorf("%s: Gen = %d, %v; want 2", tt.name, g, err)
		}
	}
	x.Unpin() // a second Unpin does nothing
	if err := x.Pin(); err != nil {
		t.Errorf("Pin after Unpin: %v", err)
	}
}
