package uselite

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/unicode/norm"
)

func TestEncodeMatchesReference(t *testing.T) {
	ref := loadReference(t)
	tok, err := realTokenizer(t)
	if err != nil {
		missing(t, "HUIMEM_REQUIRE_MODELS", "USE-lite vocabulary not found: %v; run scripts/fetch-models.sh", err)
	}
	for i, s := range ref.Sentences {
		if diff := cmp.Diff(ref.Tokens[i], tok.Encode(s)); diff != "" {
			t.Errorf("Encode(%q) (-want +got):\n%s", s, diff)
		}
	}
}

// smallVocab is a made-up vocabulary that exercises the segmentation
// rules without the real weights.
var smallVocab = []vocabEntry{
	{"\uFFFD", 0}, {"<s>", 0}, {"</s>", 0}, {"extra_token_id_1", 0}, {"extra_token_id_2", 0}, {"extra_token_id_3", 0},
	{"▁", -1},     // 6
	{"▁a", -2},    // 7
	{"b", -2},     // 8
	{"▁ab", -2.5}, // 9
	{"c", -1},     // 10
	{"▁c", -2},    // 11
	{"fi", -3},    // 12
	{"▁x", -9},    // 13
	{"▁x", -1},    // 14: a repeated piece keeps its last id and score
	{"a", -5},     // 15
	{"f", -5},     // 16
	{"i", -5},     // 17
	{"x", -5},     // 18
	{"yz", -1},    // 19
}

func TestEncodeRules(t *testing.T) {
	tok := newTokenizer(smallVocab)
	for _, tc := range []struct {
		name, in string
		want     []int
	}{
		{"empty", "", []int{}},
		{"best total score", "ab", []int{9}},
		{"spaces become ▁", "ab ab", []int{9, 9}},
		{"leading and double spaces", " a  ab", []int{6, 7, 6, 9}},
		{"a tie goes to the later start", "c", []int{6, 10}},
		{"unknown characters merge", "qzq", []int{6, 0}},
		{"unknowns between pieces", "qq ab zz", []int{6, 0, 9, 6, 0}},
		{"NFKC", "ﬁ", []int{6, 12}},
		{"full-width letters", "ａｂ", []int{9}},
		{"repeated piece", "x", []int{14}},
		// "z" starts no piece, so it is a free unknown, which beats "yz";
		// the JavaScript original does the same.
		{"an unknown costs nothing", "yz", []int{6, 0}},
		{"reserved pieces never match", "<s>", []int{6, 0}},
		{"invalid UTF-8", "\xff", []int{6, 0}},
		{"astral unknown", "😀b", []int{6, 0, 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tok.Encode(tc.in)); diff != "" {
				t.Errorf("Encode(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestParseVocab(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"not json", "["},
		{"not pairs", `[1, 2, 3, 4, 5, 6, 7]`},
		{"short pair", `[["a", 0], ["b", 0], ["c", 0], ["d", 0], ["e", 0], ["f", 0], ["g"]]`},
		{"score not a number", `[["a", 0], ["b", 0], ["c", 0], ["d", 0], ["e", 0], ["f", 0], ["g", "x"]]`},
		{"too short", `[["a", 0]]`},
		{"piece not a string", `[["a", 0], ["b", 0], ["c", 0], ["d", 0], ["e", 0], ["f", 0], [7, 0]]`},
		{"long pair", `[["a", 0], ["b", 0], ["c", 0], ["d", 0], ["e", 0], ["f", 0], ["g", 0, 1]]`},
	} {
		if _, err := parseVocab([]byte(tc.in)); err == nil {
			t.Errorf("%s: parseVocab(%s) succeeded", tc.name, tc.in)
		}
	}
	v, err := parseVocab([]byte(`[["a", 0], ["b", 0], ["c", 0], ["d", 0], ["e", 0], ["f", 0], ["▁g", -1.5], [":", null]]`))
	if err != nil || len(v) != 8 || v[6] != (vocabEntry{"▁g", -1.5}) || v[7] != (vocabEntry{":", 0}) {
		t.Errorf("got %v, %v", v, err)
	}
}

// fuzzTokenizer uses the real vocabulary when it is there and the small
// one otherwise, so the fuzz test always runs.
func fuzzTokenizer(f *testing.F) *Tokenizer {
	if tok, err := realTokenizer(f); err == nil {
		return tok
	}
	return newTokenizer(smallVocab)
}

func FuzzEncode(f *testing.F) {
	tok := fuzzTokenizer(f)
	for _, s := range []string{
		"", " ", "The cat sits on the mat.", "A kitten is resting on the rug.", "hello",
		"你好，世界", "ﬁ ﬂ", "ａｂｃ", "\xff\xfe", "e\u0301", "😀😀 ok", "  double  spaces  ", "\u3000\t\n",
		strings.Repeat("ab", 100),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		if ids == nil {
			t.Fatal("nil ids")
		}
		for k, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("Encode(%q)[%d] = %d, outside [0, %d)", s, k, id, tok.VocabSize())
			}
			if k > 0 && id == unknownID && ids[k-1] == unknownID {
				t.Fatalf("Encode(%q) = %v: unknowns not merged", s, ids)
			}
		}
		empty := norm.NFKC.String(strings.ToValidUTF8(s, "\uFFFD")) == ""
		if empty != (len(ids) == 0) {
			t.Fatalf("Encode(%q) = %v", s, ids)
		}
		if len(ids) > utf8.RuneCountInString(s)+1 && len(s) == utf8.RuneCountInString(s) {
			t.Fatalf("Encode(%q) = %d ids for %d ASCII characters", s, len(ids), len(s))
		}
	})
}

func FuzzParseVocab(f *testing.F) {
	for _, s := range []string{
		`[["a", 0], ["b", 0], ["c", 0], ["d", 0], ["e", 0], ["f", 0], ["▁g", -1.5], [":", null]]`,
		`[["a"]]`, `[[1, 2]]`, `[]`, `null`, `[null]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := parseVocab(b)
		if err != nil {
			return
		}
		if len(v) <= reservedPieces {
			t.Fatalf("accepted %d pieces", len(v))
		}
		newTokenizer(v).Encode("the cat sat")
	})
}
