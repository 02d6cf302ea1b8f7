package topic

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/huimemory/huimemory/core"
)

// Name is the extractor's registered name.
const Name = "topic"

// Type is the memory type of a topic label.
const Type = "topic"

// Labelling parameters.
const (
	// MaxKeywords is how many keywords a label holds at most.
	MaxKeywords = 3
	// MinCount is how often a keyword must occur to stand out.
	MinCount = 2
	// Separator joins the keywords of a label.
	Separator = " / "
	// maxPhrase is the longest Chinese phrase, in bigrams (6 characters).
	maxPhrase = 3
	// maxWord is the longest English word considered, in bytes.
	maxWord = 40
)

// Extractor labels chunks with their topic. It holds no state and is safe
// for concurrent use.
type Extractor struct{}

var _ core.Extractor = (*Extractor)(nil)

// New returns the extractor.
func New() *Extractor { return &Extractor{} }

// Extract returns one memory of type "topic" whose Topic is the chunk's
// label (see [Label]), or none when nothing stands out. It reads only the
// chunk's text: Text when set (skipping the transcript's message header
// lines), else its messages' texts.
func (x *Extractor) Extract(ctx context.Context, c *core.Chunk) ([]core.Memory, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	label := Label(chunkText(c))
	if label == "" {
		return nil, nil
	}
	return []core.Memory{{Type: Type, Topic: label, Extractor: Name}}, nil
}

// chunkText returns the text the label is drawn from.
func chunkText(c *core.Chunk) string {
	var b strings.Builder
	if c.Text == "" {
		for i := range c.Messages {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(c.Messages[i].Text)
		}
		return b.String()
	}
	if len(c.Messages) == 0 {
		return c.Text
	}
	headers := make(map[string]bool, len(c.Messages))
	for i := range c.Messages {
		headers[transcript.MessageHeader(&c.Messages[i])] = true
	}
	for line := range strings.SplitSeq(c.Text, "\n") {
		if !headers[line] {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// candidate is a keyword that may go in a label.
type candidate struct {
	label string
	count int
	size  int // bigrams in a Chinese phrase; 1 for an English word
	first int // rune position of the first occurrence
}

// wordStat counts an English word's occurrences under its stem.
type wordStat struct {
	count, first int
	forms        []form // surface forms, in order of first appearance
}

type form struct {
	s     string
	count int
}

// Label returns the topic label of a text: its 1 to MaxKeywords most
// salient keywords joined with " / ", or "" when no keyword occurs
// MinCount times. See the package documentation for the rule.
func Label(text string) string {
	var (
		words   = map[string]*wordStat{}
		runes   = []rune(text)
		bigrams = map[[2]rune][]int{} // bigram: rune positions
		word    []rune
		wordAt  int
		upper   bool // the word has no lower-case letter
		segFrom = -1 // start of the current Han segment
	)
	flushWord := func() {
		if len(word) == 0 {
			return
		}
		addWord(words, string(word), wordAt, upper)
		word = word[:0]
	}
	flushSeg := func(pos int) {
		if segFrom >= 0 && pos-segFrom >= 2 {
			for p := segFrom; p+1 < pos; p++ {
				bg := [2]rune{runes[p], runes[p+1]}
				if !stopSets().bigrams[bg] {
					bigrams[bg] = append(bigrams[bg], p)
				}
			}
		}
		segFrom = -1
	}
	for pos, r := range runes {
		switch {
		case unicode.Is(unicode.Han, r):
			flushWord()
			if strings.ContainsRune(stopChars, r) {
				flushSeg(pos)
				break
			}
			if segFrom < 0 {
				segFrom = pos
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushSeg(pos)
			if len(word) == 0 {
				wordAt, upper = pos, true
			}
			upper = upper && !unicode.IsLower(r)
			word = append(word, unicode.ToLower(r))
		default:
			flushWord()
			flushSeg(pos)
		}
	}
	flushWord()
	flushSeg(len(runes))

	cands := wordCandidates(words)
	cands = append(cands, phraseCandidates(bigrams, runes)...)
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.count, a.count), cmp.Compare(b.size, a.size), cmp.Compare(a.first, b.first))
	})
	var picked []string
	for _, c := range cands {
		if len(picked) == MaxKeywords {
			break
		}
		if slices.ContainsFunc(picked, func(p string) bool { return strings.Contains(p, c.label) || strings.Contains(c.label, p) }) {
			continue
		}
		picked = append(picked, c.label)
	}
	return strings.Join(picked, Separator)
}

// addWord counts an English (or other non-Han) word of at least three
// letters, or a two-letter acronym written in capitals ("AI").
func addWord(words map[string]*wordStat, w string, at int, upper bool) {
	n := utf8.RuneCountInString(w)
	if len(w) > maxWord || n < 2 || n == 2 && !upper || stopSets().words[w] || !strings.ContainsFunc(w, unicode.IsLetter) {
		return
	}
	key := stem(w)
	if stopSets().words[key] {
		return
	}
	s := words[key]
	if s == nil {
		s = &wordStat{first: at}
		words[key] = s
	}
	s.count++
	for i := range s.forms {
		if s.forms[i].s == w {
			s.forms[i].count++
			return
		}
	}
	s.forms = append(s.forms, form{w, 1})
}

// wordCandidates returns the words that occur MinCount times, each shown
// in its most frequent form (ties: the first).
func wordCandidates(words map[string]*wordStat) []candidate {
	var out []candidate
	for _, s := range words {
		if s.count < MinCount {
			continue
		}
		best := s.forms[0]
		for _, f := range s.forms[1:] {
			if f.count > best.count {
				best = f
			}
		}
		out = append(out, candidate{label: best.s, count: s.count, size: 1, first: s.first})
	}
	return out
}

// phraseCandidates picks frequent Chinese bigrams that do not overlap,
// chains the ones that follow each other into phrases, and returns every
// phrase that occurs MinCount times.
func phraseCandidates(bigrams map[[2]rune][]int, runes []rune) []candidate {
	var list [][]int // positions of each bigram that occurs MinCount times
	for _, pos := range bigrams {
		if len(pos) >= MinCount {
			list = append(list, pos)
		}
	}
	if len(list) == 0 {
		return nil
	}
	// Distinct bigrams first occur at distinct positions: the order is total.
	slices.SortFunc(list, func(a, b []int) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), cmp.Compare(a[0], b[0]))
	})
	// Take bigrams greedily, most frequent first, each at the positions
	// not taken yet; a bigram that keeps fewer than MinCount is dropped.
	taken := make([]bool, len(runes)+1)
	var starts []int
	for _, pos := range list {
		var free []int
		for _, p := range pos {
			if !taken[p] && !taken[p+1] && (len(free) == 0 || p > free[len(free)-1]+1) {
				free = append(free, p)
			}
		}
		if len(free) < MinCount {
			continue
		}
		for _, p := range free {
			taken[p], taken[p+1] = true, true
		}
		starts = append(starts, free...)
	}
	slices.Sort(starts)
	// Chain bigrams that follow each other into runs, and count every
	// part of a run made of whole bigrams as an occurrence of a phrase.
	counts := map[string]*candidate{}
	for i := 0; i < len(starts); {
		j := i + 1
		for j < len(starts) && j-i < maxPhrase && starts[j] == starts[j-1]+2 {
			j++
		}
		run := starts[i:j]
		for a := range run {
			for b := a; b < len(run); b++ {
				s := string(runes[run[a] : run[b]+2])
				c := counts[s]
				if c == nil {
					c = &candidate{label: s, size: b - a + 1, first: run[a]}
					counts[s] = c
				}
				c.count++
			}
		}
		i = j
	}
	var out []candidate
	for _, c := range counts {
		if c.count >= MinCount {
			out = append(out, *c)
		}
	}
	return out
}

// stem folds an English word's plural and -ing/-ed endings, so that
// "models" counts as "model" and "deploying" as "deploy". It is used as a
// key only; labels show a word as written.
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	cut := false
	switch {
	case len(w) > 6 && strings.HasSuffix(w, "ing"):
		w, cut = w[:len(w)-3], true
	case len(w) > 5 && strings.HasSuffix(w, "ed"):
		w, cut = w[:len(w)-2], true
	}
	if n := len(w); cut && n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		w = w[:n-1]
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}
