package topic

import (
	"strings"
	"sync"
)

// stopWords are English words that never make a topic: function words,
// conversational fillers, generic verbs and nouns, role names and URL
// parts. Words of one letter, and of two unless written in capitals, are
// dropped anyway. stopBigrams are common Chinese words that never make a
// topic. Both are built on first use, not at package init: a process that
// extracts nothing (a one-shot recall) does not pay for them.
var stopSets = sync.OnceValue(func() stopSet {
	stopWords, stopBigrams := map[string]bool{}, map[[2]rune]bool{}
	for _, w := range strings.Fields(`
		about above after again against all also although always among and another any anybody anyone
		anything anyway are aren around because been before being below besides between both but can
		cannot could couldn did didn does doesn doing done down during each either else enough etc even
		ever every everyone everything few for from further had hadn has hasn have haven having her here
		hers herself him himself his how however into isn its itself just least less let lets like likely
		made many may maybe might mine more most much must myself near neither never next nor not nothing
		now off often once one only onto other others otherwise our ours ourselves out over own per perhaps
		please quite rather really same see seem seems shall she should shouldn since some somebody someone
		something sometimes still such than that the their theirs them themselves then there therefore these
		they thing things this those though through thus till too toward towards under unless until upon
		usually very via was wasn way ways well were weren what whatever when whenever where whether which
		while who whoever whole whom whose why will with within without won would wouldn yes yet you your
		yours yourself yourselves

		able actually add already answer anything ask asked back bad best better big bit came can come
		comes coming could day days does doing don easy end example fine first get gets getting give given
		go goes going gone good got great guess hello help hey high hmm how idea ill ive keep kind know
		known last later left lot lots look looks low make makes making mean means meant need needs new
		next nice no note noted okay old ones part point pretty problem question right said say says
		second see set should show side small so sorry start sure take tell thank thanks think thought
		time times today told tomorrow try trying two use used uses using want wanted wants way week work
		works yeah yesterday yep youre

		user assistant system http https www com org net html ok id re vs am pm ps
		an as at be by do go he hi if in is it me my no of oh on or so to up us we
	`) {
		stopWords[w] = true
	}
	for _, w := range strings.Fields(`
		我们 你们 他们 她们 它们 咱们 大家 自己 这个 那个 这些 那些 这样 那样 这种 那种 这里 那里
		什么 怎么 怎样 为什 如何 哪个 哪些 多少 可以 可能 应该 需要 能够 觉得 感觉 知道 认为 希望 想要
		如果 因为 所以 但是 然后 而且 或者 还是 虽然 不过 其实 只是 就是 也是 都是 不是 没有 已经 现在
		一个 一些 一下 一点 一样 一起 一直 非常 特别 比较 真的 好的 谢谢 请问 帮我 告诉 时候 今天 明天
		昨天 问题 东西 事情 方面 情况 进行 使用 通过 之后 之前 以后 以前 还有 另外 比如 例如 当然 有点
		哈哈 呵呵 嘿嘿 嘻嘻 嗯嗯 好吧
	`) {
		r := []rune(w)
		stopBigrams[[2]rune{r[0], r[1]}] = true
	}
	return stopSet{stopWords, stopBigrams}
})

// stopSet holds stopWords and stopBigrams.
type stopSet struct {
	words   map[string]bool
	bigrams map[[2]rune]bool
}

// stopChars are Chinese function characters. They never belong to a
// keyword: Chinese text is cut into segments at them before bigrams are
// formed.
const stopChars = "的了是在我你他她它们这那和与及或就也都还很吗呢吧啊呀哦嘛啦么着过把被给让对从向于而又并个"
