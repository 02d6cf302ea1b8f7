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

// questionMarkers introduce the question a chatty message really asks:
// what follows the last of them is the question. They are matched
// case-insensitively, in simplified or traditional script.
var questionMarkers = []string{
	"我真正想问的是", "我真正想问的", "真正想问的是", "我真正想问", "真正想问",
	"我想问的是", "我想问你的是", "我要问的是", "我的问题是", "想请教一下", "想问一下", "问你个事",
	"说正事", "言归正传", "回到正题", "话说回来", "不说这个了", "先别管刚才那个", "先不说这个",
	"我真正想問的是", "我真正想問的", "真正想問的是", "我真正想問", "真正想問",
	"我想問的是", "我想問你的是", "我要問的是", "我的問題是", "想請教一下", "想問一下", "問你個事",
	"說正事", "言歸正傳", "回到正題", "話說回來", "不說這個了", "先別管剛才那個", "先不說這個",
	"my actual question is", "my real question is", "what i actually want to know is",
	"what i really want to know is", "what i want to ask is", "what i wanted to ask is",
	"my question is", "the real question is", "anyway, ", "anyways, ", "back to my question",
}

// afterthoughts start a clause that replaces what came before it ("等等，",
// "wait,"): what follows the last of them, when it is a question of its
// own, is the question.
var afterthoughts = []string{"等等", "等一下", "对了", "對了", "wait", "actually", "by the way"}

// focusQuery finds the question in a chatty message. text is what recall
// searches: the part after the last question marker ("我真正想问的是：",
// "my actual question is"), or after a last afterthought ("等等，") that
// leaves a meaningful question; otherwise the whole query. timeText is
// the part in which a time phrase may scope the search: text itself after
// a marker, else the query's closing questions when they follow small
// talk, so that "记得上周那个活动挺热闹的……我学做的那道鱼叫什么"
// does not search last week. timeText is always a suffix of text.
func focusQuery(q string) (text, timeText string) {
	q = strings.TrimSpace(q)
	lower := strings.ToLower(q)
	if len(lower) != len(q) {
		lower = q // offsets into lower must be offsets into q
	}
	best := -1
	for _, m := range questionMarkers {
		if i := strings.LastIndex(lower, m); i >= 0 && i+len(m) > best {
			if rest := trimLead(q[i+len(m):]); meaningful(rest) {
				best = i + len(m)
			}
		}
	}
	if best < 0 {
		for _, m := range afterthoughts {
			i := strings.LastIndex(lower, m)
			if i < 0 || i+len(m) <= best || !clauseStart(q, i) || !clauseEnd(q, i+len(m)) {
				continue
			}
			if rest := trimLead(q[i+len(m):]); meaningful(rest) {
				best = i + len(m)
			}
		}
	}
	if best >= 0 {
		text = trimLead(q[best:])
		return text, text
	}
	sents := sentences(q)
	if len(sents) < 2 {
		return q, q
	}
	// The question is the last sentence and the questions just before it
	// ("4月30号的天气如何？我去干什么了？"); statements before them are
	// small talk.
	i := len(sents) - 1
	for i > 0 && isQuestion(sents[i-1]) {
		i--
	}
	if i == 0 {
		return q, q
	}
	at := strings.LastIndex(q, sents[i])
	if !meaningful(q[at:]) || !strings.HasSuffix(q, sents[len(sents)-1]) {
		return q, q
	}
	return q, q[at:]
}

// isQuestion reports whether sentence s ends with a question mark.
func isQuestion(s string) bool {
	return strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？")
}

// trimLead drops the punctuation and space a marker leaves in front of
// the question ("：", "，", ", ").
func trimLead(s string) string {
	return strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
}

// clauseStart reports whether byte offset i of s starts a clause: at the
// start of s or after punctuation or space, and not inside a word.
func clauseStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsSpace(r) || unicode.IsPunct(r)
}

// clauseEnd reports whether an afterthought ending at byte offset i of s
// is followed by punctuation, as "等等，" and "wait," are.
func clauseEnd(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsPunct(r)
}
