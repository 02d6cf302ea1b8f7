package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxCleanQuery is the longest query, in characters, that passes through
// sanitizeQuery unchanged.
const maxCleanQuery = 200

// maxQuestion is the longest question, in characters, that sanitizeQuery
// keeps whole: a long query's question sentence is often longer than
// maxCleanQuery, and cutting its head off loses its subject.
const maxQuestion = 600

// sanitizeQuery reduces a long query to the question in it. Agents often
// paste their whole system prompt, or a conversation, in front of the
// user's question; searched as it is, the prompt's words swamp the
// question's. A query of up to maxCleanQuery characters is returned as it
// is. A longer one with several paragraphs whose last is a meaningful
// message of at most maxQuestion characters is reduced to that paragraph
// (see lastParagraph). Otherwise it is cut into sentences (at . ! ? 。！？
// ; and line breaks) and reduced to its last question (a sentence ending in ? or
// ？), else its last meaningful sentence (at least three words, or four
// Chinese, Japanese or Korean characters), either kept whole up to
// maxQuestion characters (longer, its last maxQuestion), else its last
// maxCleanQuery characters. A leading speaker label such as "User:" is removed.
func sanitizeQuery(q string) string {
	if utf8.RuneCountInString(q) <= maxCleanQuery {
		return q
	}
	if p, ok := lastParagraph(q); ok {
		return p
	}
	sents := sentences(q)
	for i := len(sents) - 1; i >= 0; i-- {
		s := sents[i]
		if (strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？")) && meaningful(s) {
			return clip(stripLabel(s), maxQuestion)
		}
	}
	for i := len(sents) - 1; i >= 0; i-- {
		if meaningful(sents[i]) {
			return clip(stripLabel(sents[i]), maxQuestion)
		}
	}
	return clip(q, maxCleanQuery)
}

// lastParagraph returns the last paragraph of q (the text after its last
// blank line), without a leading speaker label, when q has more than one
// paragraph and the last is a meaningful message of at most maxQuestion
// characters: a host that pastes its prompt in front of the user's message
// sets the message apart, and the whole message is the question, with the
// sentences that give its subject.
func lastParagraph(q string) (string, bool) {
	q = strings.TrimSpace(q)
	i := max(strings.LastIndex(q, "\n\n"), strings.LastIndex(q, "\r\n\r\n"))
	if i < 0 {
		return "", false
	}
	p := stripLabel(strings.TrimSpace(q[i:]))
	if !meaningful(p) || utf8.RuneCountInString(p) > maxQuestion {
		return "", false
	}
	return p, true
}

// sentences splits text after sentence terminators and at line breaks,
// trimming each piece and dropping empty ones. A full stop between two
// letters or digits ("v1.2", "e.g") does not end a sentence.
func sentences(text string) []string {
	var out []string
	rs := []rune(text)
	start := 0
	flush := func(end int) {
		if s := strings.TrimSpace(string(rs[start:end])); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i, r := range rs {
		switch r {
		case '\n', '\r':
			flush(i)
		case '?', '!', '？', '！', '。', '；', ';':
			flush(i + 1)
		case '.':
			if i+1 < len(rs) && !unicode.IsSpace(rs[i+1]) {
				continue
			}
			flush(i + 1)
		}
	}
	flush(len(rs))
	return out
}

// meaningful reports whether s has at least three words or four CJK
// characters.
func meaningful(s string) bool {
	words, han := 0, 0
	inWord := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r):
			han++
			inWord = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !inWord {
				words++
			}
			inWord = true
		default:
			inWord = false
		}
	}
	return words >= 3 || han >= 4
}

// stripLabel removes a leading speaker label: one or two words followed
// by a colon ("User:", "Q:", "用户：").
func stripLabel(s string) string {
	i := strings.IndexAny(s, ":：")
	if i <= 0 || utf8.RuneCountInString(s[:i]) > 20 || len(strings.Fields(s[:i])) > 2 {
		return s
	}
	rest := strings.TrimSpace(strings.TrimLeft(s[i:], ":："))
	if rest == "" {
		return s
	}
	return rest
}

// clip keeps the last n characters of s.
func clip(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return strings.TrimSpace(string(rs[len(rs)-n:]))
}
