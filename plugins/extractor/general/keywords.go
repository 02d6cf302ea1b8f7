package general

// The memory types the extractor reports, in the order it reports them.
const (
	Decision   = "decision"
	Preference = "preference"
	Milestone  = "milestone"
	Problem    = "problem"
	Emotional  = "emotional"
)

// Types lists the memory types in report order.
var Types = []string{Decision, Preference, Milestone, Problem, Emotional}

// rule is one keyword table.
type rule struct {
	typ string // the memory type, or resolution
	// negatable rules do not fire after a negation ("not", "never", "no",
	// a word ending in "n't", or 没/未/不/别 just before).
	negatable bool
	keywords  []string
}

// resolution marks a rule whose hits turn earlier problems into a
// milestone; its hits are milestone facts too.
const resolution = "resolution"

// rules are the keyword tables. Keywords are lower case and match anywhere
// in a sentence; those that start or end with a Latin letter or digit must
// start or end on a word boundary there, unless they end in "*", which
// matches any ending ("fail*" matches "fails", "failed", "failure").
// "'" also matches the typographic apostrophe.
var rules = []rule{
	{Decision, true, []string{
		"we decided", "i decided", "decided to", "decided on", "we've decided", "i've decided",
		"let's go with", "lets go with", "let's use", "we'll go with", "we will go with", "i'll go with",
		"going to go with", "we chose", "i chose", "we picked", "we settled on", "settled on",
		"the decision is", "final decision", "made the decision", "made a decision", "we agreed to", "agreed on",
		"we'll use", "we will use", "decision:",
		"决定", "就用", "选定", "定了", "敲定", "拍板", "采用", "确定用", "选择了", "就这么办", "就这样定",
	}},
	{Preference, false, []string{
		"i prefer", "i'd prefer", "i would prefer", "i like", "i really like", "i love", "i really love",
		"i hate", "i dislike", "i don't like", "i do not like", "i can't stand", "i enjoy",
		"my favorite", "my favourite", "i'd rather", "i would rather", "i'm a fan of", "i am a fan of",
		"i'm not a fan of",
		"我喜欢", "我更喜欢", "不喜欢", "我爱", "我讨厌", "我偏好", "偏好", "更倾向", "我倾向", "最喜欢",
		"我习惯", "受不了", "我宁愿",
	}},
	{Milestone, true, []string{
		"finished", "launched", "shipped", "got the job", "got an offer", "got the offer", "got promoted",
		"released", "completed", "went live", "is live", "are live", "graduated", "passed the", "milestone",
		"deployed to production", "we reached", "finally done", "all done", "merged",
		"完成了", "上线了", "发布了", "搞定了", "通过了", "拿到了offer", "拿到offer", "毕业了", "升职了",
		"里程碑", "交付了", "达成了", "实现了", "做完了", "写完了", "发版了",
	}},
	{Problem, true, []string{
		"error*", "bug*", "doesn't work", "does not work", "don't work", "isn't working", "not working",
		"stopped working", "won't start", "fail*", "crash*", "broken", "exception*", "issue*", "problem*",
		"timeout*", "timed out", "can't connect", "cannot connect", "unable to", "stuck", "panic:",
		"segfault", "traceback", "not found", "out of memory", "leak*",
		"报错", "出问题", "出错", "错误", "失败", "崩溃", "异常", "故障", "有问题", "不行", "不工作",
		"没反应", "卡住", "超时", "连不上", "打不开", "跑不起来",
	}},
	{Emotional, false, []string{
		"i'm so happy", "so happy", "i'm happy", "i am happy", "excited", "thrilled", "delighted",
		"frustrat*", "worried", "anxious", "stressed", "upset", "sad", "angry", "annoyed",
		"disappointed", "relieved", "grateful", "overwhelmed", "scared", "nervous",
		"depressed", "lonely", "proud of", "i'm feeling", "i am feeling",
		"开心", "高兴", "快乐", "兴奋", "激动", "难过", "伤心", "焦虑", "担心", "沮丧", "生气", "烦死",
		"郁闷", "失望", "压力大", "害怕", "紧张", "委屈", "感动", "欣慰", "自豪", "孤独", "心累",
	}},
	{resolution, true, []string{
		"fixed", "solved", "resolved", "works now", "working now", "it works", "sorted it out",
		"figured it out", "figured out", "got it working", "no longer",
		"解决了", "修好了", "修复了", "搞定了", "恢复了", "正常了", "能用了",
	}},
}
