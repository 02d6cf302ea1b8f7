package general

import (
	"context"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/huimemory/huimemory/core"
)

// Name is the extractor's registered name.
const Name = "general"

// Limits on one memory.
const (
	MaxFacts     = 3   // sentences kept as facts
	MaxFactRunes = 200 // runes of one fact, before "…"
	MaxEntities  = 8
)

// Extractor is the heuristic extractor. It holds no state and is safe for
// concurrent use.
type Extractor struct{}

var _ core.Extractor = (*Extractor)(nil)

// New returns the extractor.
func New() *Extractor { return &Extractor{} }

// keyword is a compiled keyword.
type keyword struct {
	s         string
	rule      int  // index in rules
	right     bool // must end on a word boundary
	negatable bool
}

// byFirst holds the keywords by their first rune: ASCII ones in ascii,
// others in other. Keywords that start with a Latin letter or digit must
// start on a word boundary. It is built on first use, not at package
// init, which every huimem process would pay for.
var byFirst = sync.OnceValue(func() *keywordIndex { return compile(rules) })

type keywordIndex struct {
	ascii [utf8.RuneSelf][]keyword
	other map[rune][]keyword
}

func compile(rs []rule) *keywordIndex {
	ix := &keywordIndex{other: map[rune][]keyword{}}
	for i, r := range rs {
		for _, k := range r.keywords {
			kw := keyword{s: strings.TrimSuffix(k, "*"), rule: i, negatable: r.negatable}
			kw.right = !strings.HasSuffix(k, "*") && isWordByte(kw.s[len(kw.s)-1])
			first, _ := utf8.DecodeRuneInString(kw.s)
			if first < utf8.RuneSelf {
				ix.ascii[first] = append(ix.ascii[first], kw)
			} else {
				ix.other[first] = append(ix.other[first], kw)
			}
		}
	}
	return ix
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// Extract returns the chunk's memories, at most one per type, in the order
// of [Types]. It reads only the chunk's text: Text when set (skipping the
// transcript's message header lines), else its messages' texts.
func (x *Extractor) Extract(ctx context.Context, c *core.Chunk) ([]core.Memory, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sents := sentences(c)
	if len(sents) == 0 {
		return nil, nil
	}
	// Match every keyword once over the whole normalised text, one
	// sentence per line.
	var b strings.Builder
	starts := make([]int, len(sents))
	for i, s := range sents {
		starts[i] = b.Len()
		b.WriteString(normalise(s))
		b.WriteByte('\n')
	}
	norm := b.String()
	hit := map[string][]bool{}
	si := 0 // the sentence holding norm[i]
	idx := byFirst()
	for i := 0; i < len(norm); {
		r, size := utf8.DecodeRuneInString(norm[i:])
		for si+1 < len(starts) && starts[si+1] <= i {
			si++
		}
		var kws []keyword
		switch {
		case r >= utf8.RuneSelf:
			kws = idx.other[r]
		case isWordByte(byte(r)) && i > 0 && isWordByte(norm[i-1]):
			// Not on a word boundary: no keyword starts here.
		default:
			kws = idx.ascii[r]
		}
		for _, kw := range kws {
			end := i + len(kw.s)
			if !strings.HasPrefix(norm[i:], kw.s) || kw.right && end < len(norm) && isWordByte(norm[end]) ||
				kw.negatable && negated(norm[starts[si]:i]) {
				continue
			}
			typ := rules[kw.rule].typ
			if hit[typ] == nil {
				hit[typ] = make([]bool, len(sents))
			}
			hit[typ][si] = true
		}
		i += size
	}
	// A problem followed (in the same or a later sentence) by a
	// resolution is a milestone; resolutions are milestones too.
	if res := hit[resolution]; res != nil {
		last := -1
		for i, ok := range res {
			if ok {
				last = i
			}
		}
		if hit[Milestone] == nil {
			hit[Milestone] = make([]bool, len(sents))
		}
		for i := range sents {
			if res[i] {
				hit[Milestone][i] = true
			}
			if i <= last && hit[Problem] != nil && hit[Problem][i] {
				hit[Milestone][i] = true
				hit[Problem][i] = false
			}
		}
	}
	var out []core.Memory
	for _, typ := range Types {
		m := core.Memory{Type: typ, Extractor: Name}
		for i, ok := range hit[typ] {
			if !ok {
				continue
			}
			m.Facts = append(m.Facts, fact(sents[i]))
			m.Entities = entities(sents[i], m.Entities)
			if len(m.Facts) == MaxFacts {
				break
			}
		}
		if len(m.Facts) > 0 {
			out = append(out, m)
		}
	}
	return out, nil
}

// normalise lower-cases s for matching and turns typographic apostrophes
// into "'".
func normalise(s string) string {
	s = strings.ToLower(s)
	if strings.ContainsAny(s, "’‘") {
		s = strings.NewReplacer("’", "'", "‘", "'").Replace(s)
	}
	return s
}

// negated reports whether the text before a keyword, in its sentence,
// ends in a negation: 没, 没有, 未, 不 or 别 just before it, or "not",
// "never", "no", "without", "cannot" or a word ending in "n't" among the
// last two words.
func negated(before string) bool {
	if r, _ := utf8.DecodeLastRuneInString(before); r == '没' || r == '未' || r == '不' || r == '别' {
		return true
	}
	if strings.HasSuffix(before, "没有") {
		return true
	}
	tail := before[max(0, len(before)-40):]
	words := strings.FieldsFunc(tail, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	for i := max(0, len(words)-2); i < len(words); i++ {
		switch w := words[i]; {
		case w == "not" || w == "never" || w == "no" || w == "without" || w == "cannot" || strings.HasSuffix(w, "n't"):
			return true
		}
	}
	return false
}

// sentences returns the chunk's sentences, in order.
func sentences(c *core.Chunk) []string {
	var out []string
	emit := func(s string) {
		if s = trimSentence(s); s != "" {
			out = append(out, s)
		}
	}
	if c.Text == "" {
		for i := range c.Messages {
			split(c.Messages[i].Text, emit)
		}
		return out
	}
	headers := make(map[string]bool, len(c.Messages))
	for i := range c.Messages {
		headers[transcript.MessageHeader(&c.Messages[i])] = true
	}
	for line := range strings.SplitSeq(c.Text, "\n") {
		if !headers[line] {
			split(line, emit)
		}
	}
	return out
}

// split cuts text into sentences: at line breaks, after 。！？；… and after
// . ! ? ; followed by white space or the end.
func split(text string, emit func(string)) {
	start := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		next := i + size
		switch r {
		case '\n':
			emit(text[start:i])
			start = next
		case '。', '！', '？', '；', '…':
			emit(text[start:next])
			start = next
		case '.', '!', '?', ';':
			if next == len(text) || text[next] == ' ' || text[next] == '\t' || text[next] == '\n' || text[next] == '\r' {
				emit(text[start:next])
				start = next
			}
		}
		i = next
	}
	emit(text[start:])
}

// trimSentence strips white space and list or quote marks, and drops
// sentences with fewer than two letters.
func trimSentence(s string) string {
	s = strings.TrimLeft(strings.TrimSpace(s), "#>*-•+ \t")
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			if letters++; letters == 2 {
				return s
			}
		}
	}
	return ""
}

// fact cuts a sentence to MaxFactRunes runes.
func fact(s string) string {
	if utf8.RuneCountInString(s) <= MaxFactRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxFactRunes {
			return strings.TrimSpace(s[:i]) + "…"
		}
		n++
	}
	return s
}
