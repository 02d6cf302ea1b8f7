package index

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/google/go-cmp/cmp"
)

// TestContextPartsIndexLikeJoinedContext indexes the same chunks three
// times: by bleve's own Batch.Index with the neighbours' text joined into
// Context, by Apply with the same documents, and by ApplyParts with the
// context as parts; every search must score every chunk the same.
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
	joined, split, fast := openTest(t), openTest(t), openTest(t)
	if err := applyWithBleve(joined, docs(false), nil, 1); err != nil {
		t.Fatal(err)
	}
	if err := fast.Apply(docs(false), nil, 1); err != nil {
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
	// One segment, as the others have: bleve's BM25 sums each segment's
	// distinct terms into the average field length, so two segments
	// whose terms overlap score differently from one.
	if err := split.Merge(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"deploy budget", "部署预算", "server latency", "kyoto 会议", "meeting"} {
		for _, boost := range []float64{0, 0.5} {
			s := Search{Text: q, NS: "n", ContextBoost: boost, Size: 60}
			want, err := joined.Search(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatalf("%q finds nothing", q)
			}
			for name, x := range map[string]*Index{"ApplyParts": split, "Apply": fast} {
				got, err := x.Search(t.Context(), s)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%q, context boost %v (-bleve +%s):\n%s", q, boost, name, diff)
				}
			}
		}
	}
}

// TestFastAnalyzerAnalyzesLikeBleve checks that the analyser with cached
// stems and a width filter that skips plain text gives the tokens of the
// index's own analyser, on first sight of each word and from the cache.
func TestFastAnalyzerAnalyzesLikeBleve(t *testing.T) {
	x := openTest(t)
	plain := x.b.Mapping().AnalyzerNamed(AnalyzerName)
	cached := fastAnalyzer(plain)
	if cached == plain {
		t.Fatal("the index's analyser has no filter to replace")
	}
	for _, text := range []string{
		"user: The servers were running; deployments failed twice. Meeting's notes?",
		"assistant: running runs ran runner RUNNING generously generous generalization",
		"Alice: 我们明天去京都旅行，预算大概是五万日元。",
		"user: 服务器的部署在周五 Friday deployments 部署预算 kyoto's temples",
		"Ｆｕｌｌｗｉｄｔｈ ＡＢＣ letters and ｶﾀｶﾅ, emoji 🎉 and numbers 2026-01-02 3.14",
		"ﾃﾞｰﾀ ｶﾞｲﾄﾞ Ｒｕｎｎｉｎｇ Servers' ＩＳＴＡＮＢＵＬ İstanbul ΣΊΣΥΦΟΣ Straße",
		"user: 全角，标点。“引号” and ｆｕｌｌ-ｗｉｄｔｈ in one 句子",
		"",
		"the a an of", // stop words only
		"I’ve said don’t ‘quote’ ʼn’ so", // typographic apostrophes
	} {
		want := plain.Analyze([]byte(text))
		for round := range 2 {
			got := cached.Analyze([]byte(text))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%q, round %d (-bleve +cached):\n%s", text, round, diff)
			}
		}
	}
}

// TestContextFieldCountsLikeJoinedText checks the terms, counts and
// length that the text, reply and ctx fields get from cached parts
// against the analysis of each field's whole text, as bleve does it.
func TestContextFieldCountsLikeJoinedText(t *testing.T) {
	x := openTest(t)
	an := x.b.Mapping().AnalyzerNamed(AnalyzerName)
	type want struct {
		freqs  map[string]int
		length int
	}
	straight := func(text string, opts bindex.FieldIndexingOptions) want {
		toks := an.Analyze([]byte(text))
		w := want{freqs: map[string]int{}, length: len(toks)}
		for term, tf := range analysis.TokenFrequency(toks, nil, opts) {
			w.freqs[term] = tf.Frequency()
		}
		return w
	}
	prev := "user: We deployed the servers to Kyoto on Friday; the deploy's budget was tight."
	next := "assistant: Deployment budgets: the servers cost more than planned. Deploying again?"
	zhPrev := "用户: 我们周五把服务器部署到京都了，部署预算很紧。"
	zhNext := "助手: 服务器的部署预算超了，还要再部署吗？"
	for _, tc := range []struct {
		name  string
		doc   Doc
		parts []string
	}{
		{"english, both neighbours", Doc{Text: "user: What did the deployment cost?", Reply: "assistant: The deployment cost 3000 euros."}, []string{prev, next, next}},
		{"chinese, both neighbours", Doc{Text: "用户: 部署花了多少钱？", Reply: "助手: 部署花了三千欧元。"}, []string{zhPrev, zhNext}},
		{"mixed, one neighbour", Doc{Text: "user: kyoto 部署 budget"}, []string{zhPrev + " deploy budget"}},
		{"a neighbour that is the chunk's own text", Doc{Text: prev}, []string{prev, prev}},
		{"no neighbours", Doc{Text: "user: alone"}, []string{}},
		{"empty text", Doc{Reply: next}, []string{"", prev}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.doc.ID, tc.doc.NS = "c1", "n"
			ctx := newContextAnalysis(an)
			// Another document of the batch shares the parts' counts.
			other := Doc{ID: "c0", NS: "n", Text: prev, Reply: next}
			if _, err := x.document(&other, []string{prev, next}, ctx); err != nil {
				t.Fatal(err)
			}
			doc, err := x.document(&tc.doc, tc.parts, ctx)
			if err != nil {
				t.Fatal(err)
			}
			texts := map[string]string{"text": tc.doc.Text, "reply": tc.doc.Reply, "ctx": strings.Join(tc.parts, "\n")}
			seen := 0
			for _, f := range doc.Fields {
				text, ok := texts[f.Name()]
				if !ok {
					continue
				}
				seen++
				if _, ok := f.(*ctxField); !ok {
					t.Errorf("field %s is a %T, want the cached *ctxField", f.Name(), f)
				}
				f.Analyze()
				got := want{freqs: map[string]int{}, length: f.AnalyzedLength()}
				for term, tf := range f.AnalyzedTokenFrequencies() {
					if term != string(tf.Term) {
						t.Errorf("field %s: term %q is keyed %q", f.Name(), tf.Term, term)
					}
					got.freqs[term] = tf.Frequency()
				}
				w := straight(text, f.Options())
				if diff := cmp.Diff(w, got, cmp.AllowUnexported(want{})); diff != "" {
					t.Errorf("field %s (-straight +cached):\n%s", f.Name(), diff)
				}
			}
			if seen != 3 {
				t.Errorf("found %d of the text, reply and ctx fields", seen)
			}
		})
	}
}

// applyWithBleve is [Index.Apply] as bleve's Batch.Index does it, with its
// own analysis of every field: the reference that Apply and ApplyParts
// must equal.
func applyWithBleve(x *Index, docs []Doc, deletes []string, gen uint64) error {
	batch := x.b.NewBatch()
	for i := range docs {
		if err := batch.Index(docs[i].ID, docs[i].fields()); err != nil {
			return err
		}
	}
	for _, id := range deletes {
		batch.Delete(id)
	}
	batch.SetInternal(keyGen, []byte(strconv.FormatUint(gen, 10)))
	return x.b.Batch(batch)
}
