package general

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// entities appends to dst the entities of one sentence that dst does not
// hold yet, up to MaxEntities in all. The rules, kept simple:
//
//   - quoted terms: text of 1 to 40 runes between "", “”, 「」, 『』,
//     《》, 【】 or backticks;
//   - Latin words (letters and digits, with inner . - _ and trailing + or
//     #, such as "Node.js", "GPT-4", "C++") of two or more characters that
//     look like names: with a capital after the first letter ("vLLM",
//     "PostgreSQL", "API"), or capitalised and not the sentence's first
//     word nor a common capitalised word ("Kyoto", but not "The" at the
//     start or "Monday"); capitalised words in a row, one space apart, form
//     one entity ("New York"). In a sentence with Chinese characters every
//     such Latin word counts, whatever its case ("用ollama部署");
//   - Chinese organisation-like names: up to four Han characters before a
//     suffix such as 公司, 大学, 医院, 银行, 团队 or 项目, stopping at
//     function characters (的, 了, 在, 我, ...): "我在字节跳动公司" gives
//     "字节跳动公司".
func entities(s string, dst []string) []string {
	add := func(e string) {
		e = strings.TrimSpace(e)
		if e != "" && len(dst) < MaxEntities && !slices.Contains(dst, e) {
			dst = append(dst, e)
		}
	}
	quoted(s, add)
	latin(s, add)
	orgNames(s, add)
	return dst
}

var quotes = []struct{ open, close string }{
	{`"`, `"`}, {"“", "”"}, {"「", "」"}, {"『", "』"}, {"《", "》"}, {"【", "】"}, {"`", "`"},
}

func quoted(s string, add func(string)) {
	for _, q := range quotes {
		rest := s
		for {
			i := strings.Index(rest, q.open)
			if i < 0 {
				break
			}
			rest = rest[i+len(q.open):]
			j := strings.Index(rest, q.close)
			if j < 0 {
				break
			}
			if in := rest[:j]; in != "" && utf8.RuneCountInString(in) <= 40 {
				add(in)
			}
			rest = rest[j+len(q.close):]
		}
	}
}

// common are words that are not names even when capitalised, in lower
// case.
// It is built on first use.
var common = sync.OnceValue(func() map[string]bool {
	common := map[string]bool{}
	for _, w := range strings.Fields(`OK Ok Yes No Hi Hey Hello Thanks Thank Sure Please Sorry Oh Well So But And
		Or The A An This That These Those It Its We You He She They My Our Your Let Lets If When Then Also
		Just Maybe Now Today Tomorrow Yesterday What Why How Who Where Which Great Good Nice Cool Done
		Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April June July
		August September October November December`) {
		common[strings.ToLower(w)] = true
	}
	return common
})

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

func isLatin(r rune) bool { return r < utf8.RuneSelf && isWordByte(byte(r)) }

// latin finds name-like Latin words.
func latin(s string, add func(string)) {
	hasHan := strings.ContainsFunc(s, isHan)
	type word struct {
		start, end int
		capRun     bool // capitalised, may join the next one
	}
	var words []word
	initial := true // no letter seen before in the sentence
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isLatin(r) {
			if unicode.IsLetter(r) {
				initial = false
			}
			i += size
			continue
		}
		start, j := i, i
		for j < len(s) {
			c := s[j]
			if isWordByte(c) || (c == '.' || c == '-' || c == '_') && j+1 < len(s) && isWordByte(s[j+1]) {
				j++
				continue
			}
			break
		}
		for j < len(s) && (s[j] == '+' || s[j] == '#') {
			j++
		}
		w := s[start:j]
		first := initial
		initial = false
		i = j
		if len(w) < 2 || !strings.ContainsFunc(w, unicode.IsLetter) {
			continue
		}
		if common()[strings.ToLower(w)] {
			continue
		}
		switch {
		case hasHan || strings.ContainsFunc(w[1:], unicode.IsUpper):
			words = append(words, word{start, j, false})
		case unicode.IsUpper(rune(w[0])) && !first:
			words = append(words, word{start, j, true})
		}
	}
	for k := 0; k < len(words); k++ {
		start, end := words[k].start, words[k].end
		for words[k].capRun && k+1 < len(words) && words[k+1].capRun && words[k+1].start == end+1 && s[end] == ' ' {
			k++
			end = words[k].end
		}
		add(s[start:end])
	}
}

var orgSuffixes = []string{"公司", "大学", "学院", "医院", "银行", "集团", "团队", "项目", "实验室", "研究院", "平台", "框架"}

// function characters never start a Chinese name.
const function = "的了是在我你他她它们这那和与及或就也都还很把被给让对从向于用到去来个家位要想说做有没不一"

func orgNames(s string, add func(string)) {
	for _, suf := range orgSuffixes {
		rest, base := s, 0
		for {
			i := strings.Index(rest, suf)
			if i < 0 {
				break
			}
			at := base + i
			start, n := at, 0
			for n < 4 && start > 0 {
				r, size := utf8.DecodeLastRuneInString(s[:start])
				if !isHan(r) || strings.ContainsRune(function, r) {
					break
				}
				start -= size
				n++
			}
			if n > 0 {
				add(s[start : at+len(suf)])
			}
			base = at + len(suf)
			rest = s[base:]
		}
	}
}
