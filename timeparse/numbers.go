package timeparse

import (
	"strconv"
	"strings"

	"github.com/olebedev/when/rules/en"
)

// maxNumber bounds the counts in phrases such as "3 days ago", so that no
// arithmetic can overflow.
const maxNumber = 9999

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

var hanDigits = map[rune]int{'零': 0, '〇': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
var hanUnits = map[rune]int{'十': 10, '百': 100, '千': 1000}

// parseNumber reads a count written in ASCII digits, Chinese numerals
// ("三", "十二", "二十三", "一百零五") or English words ("a", "three",
// "a couple of"). fuzzy is set for "a few", "several", "几" and "数". It
// reports false for anything else and for counts above maxNumber.
func parseNumber(s string) (n int, fuzzy, ok bool) {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	switch s {
	case "":
		return 0, false, false
	case "a", "an":
		return 1, false, true
	case "a couple of", "couple of":
		return 2, false, true
	case "a few", "few", "several", "几", "数":
		return few, true, true
	}
	if n, ok := en.INTEGER_WORDS[s]; ok {
		return n, false, true
	}
	if s[0] >= '0' && s[0] <= '9' {
		n := atoi(s)
		return n, false, n >= 0 && n <= maxNumber
	}
	n, ok = parseHan(s)
	return n, false, ok
}

// parseHan reads a number in Chinese numerals. A run of digits without
// units, as in a year ("二〇二五"), is read digit by digit.
func parseHan(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	hasUnit := strings.ContainsAny(s, "十百千")
	total, digit := 0, 0
	for _, r := range s {
		if d, ok := hanDigits[r]; ok {
			if hasUnit {
				digit = d
			} else {
				total = total*10 + d
			}
		} else if u, ok := hanUnits[r]; ok {
			if digit == 0 && u == 10 {
				digit = 1 // "十二" is 12.
			}
			total += digit * u
			digit = 0
		} else {
			return 0, false
		}
		if total > maxNumber {
			return 0, false
		}
	}
	total += digit
	return total, total <= maxNumber
}

// parseDay reads a day of the month in digits, Chinese numerals or an
// English ordinal ("6th", "sixth").
func parseDay(s string) (int, bool) {
	l := strings.Join(strings.Fields(strings.ToLower(s)), " ")
	if d, ok := en.ORDINAL_WORDS[l]; ok {
		return d, true
	}
	l = strings.TrimRight(l, "stndrh")
	if l == "" {
		return 0, false
	}
	if l[0] >= '0' && l[0] <= '9' {
		d := atoi(l)
		return d, d >= 0
	}
	return parseHan(l)
}
