package index

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestContextPartsIndexLikeJoinedContext indexes the same chunks twice,
// once with the neighbours' text joined into Context and once as
// parts, and checks that every search scores every chunk the same.
func TestContextPartsIndexLikeJoinedContext(t *testing.T) {
	words := []string{"deploy", "budget", "kyoto", "temple", "server's", "latency", "Meeting", "部署", "预算", "会议", "服务器", "旅行", "咖啡"}
	r := rand.New(rand.NewPCG(1, 2))
	content := make([]string, 60)
	for i := range content {
		var b strings.Builder
		b.WriteString([]string{"user: ", "assistant: ", "Alice: "}[i%3])
		for j := 0; j < 5+r.IntN(20); j++ {
			if j > 0 && r.IntN(3) > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		content[i] = b.String()
	}
	var parts [][]string
	docs := func(split bool) []Doc {
		var out []Doc
		for i := range content {
			var ctx []string
			if i > 0 {
				ctx = append(ctx, content[i-1])
			}
			if i+1 < len(content) {
				ctx = append(ctx, content[i+1])
			}
			d := Doc{ID: fmt.Sprintf("c%02d", i), NS: "n", Session: fmt.Sprintf("s%d", i/20), Time: time.Date(2026, 1, 1, i, 0, 0, 0, time.UTC),
				Text: content[i], Roles: []string{"user"}}
			if split {
				parts = append(parts, ctx)
			} else {
				d.Context = strings.Join(ctx, "\n")
			}
			out = append(out, d)
		}
		return out
	}
	joined, split := openTest(t), openTest(t)
	if err := joined.Apply(docs(false), nil, 1); err != nil {
		t.Fatal(err)
	}
	// Two batches, so that a part is analysed in each.
	d := docs(true)
	if err := split.ApplyParts(d[:25], parts[:25], nil, 1); err != nil {
		t.Fatal(err)
	}
	if err := split.ApplyParts(d[25:], parts[25:], nil, 1); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"deploy budget", "部署预算", "server latency", "kyoto 会议", "meeting"} {
		for _, boost := range []float64{0, 0.5} {
			s := Search{Text: q, NS: "n", ContextBoost: boost, Size: 60}
			want, err := joined.Search(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := split.Search(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatalf("%q finds nothing", q)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%q, context boost %v (-joined +parts):\n%s", q, boost, diff)
			}
		}
	}
}
