package timeparse

import (
	"strings"
	"unicode/utf8"
)

// Traditional characters are read through a small table that maps each
// traditional character used in time phrases to its simplified form
// ("上週五" is read as "上周五", "兩個禮拜前" as "两个礼拜前"). Every
// character in the table is three bytes long in UTF-8, as is its simplified
// form, so the mapped text has the same byte offsets as the original and a
// phrase found in one is cut from the other unchanged.
//
// The table is deliberately limited to the characters of the phrases this
// package reads; a general converter (OpenCC) maps phrases, not
// characters, and would shift offsets.
var tradToSimp = map[rune]rune{
	'週': '周', '這': '这', '禮': '礼', '個': '个', '兩': '两', '幾': '几',
	'後': '后', '過': '过', '來': '来', '點': '点', '鐘': '钟', '頭': '头',
	'時': '时', '間': '间', '陣': '阵', '從': '从', '於': '于', '號': '号',
	'淩': '凌', '裡': '里', '裏': '里', '內': '内', '當': '当', '剛': '刚',
	'數': '数', '現': '现', '開': '开', '節': '节', '國': '国', '慶': '庆',
	'誕': '诞', '勞': '劳', '動': '动', '長': '长', '黃': '黄', '聖': '圣',
	'萬': '万',
}

// simplify returns s with the traditional characters of the table
// replaced by their simplified forms. The result has the same length and
// the same byte offsets as s. s is returned as is when it has nothing to
// replace, which is the common case.
func simplify(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { _, ok := tradToSimp[r]; return ok })
	if i < 0 {
		return s
	}
	b := []byte(s)
	for j := i; j < len(b); {
		r, size := utf8.DecodeRune(b[j:])
		if t, ok := tradToSimp[r]; ok && utf8.RuneLen(t) == size {
			utf8.EncodeRune(b[j:], t)
		}
		j += size
	}
	return string(b)
}
