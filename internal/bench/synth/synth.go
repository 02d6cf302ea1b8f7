// Package synth generates seeded synthetic conversation corpora for
// benchmarks and tests: mixed Chinese and English turns, several
// namespaces, sessions spread over a span of time, with a Zipf-distributed
// vocabulary and per-session topics, so that term frequencies look like
// real chat rather than a handful of words repeated everywhere.
package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
)

// Options shape a corpus.
type Options struct {
	Seed uint64
	// Pairs is the number of user/assistant exchange pairs (turn chunks).
	Pairs int
	// PerSession is the number of pairs in a session (default 20).
	PerSession int
	// Namespaces are assigned round-robin by session (default: the default
	// namespace only).
	Namespaces []string
	// Start and Span place the sessions evenly in [Start, Start+Span)
	// (default: 2025-12-01 in UTC+8, one year).
	Start time.Time
	Span  time.Duration
	// Chinese is the share of Chinese sentences (default 0.35).
	Chinese float64
}

func (o *Options) setDefaults() {
	if o.PerSession == 0 {
		o.PerSession = 20
	}
	if len(o.Namespaces) == 0 {
		o.Namespaces = []string{""}
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2025, 12, 1, 9, 0, 0, 0, time.FixedZone("CST", 8*3600))
	}
	if o.Span == 0 {
		o.Span = 365 * 24 * time.Hour
	}
	if o.Chinese == 0 {
		o.Chinese = 0.35
	}
}

// Vocabulary sizes.
const (
	enVocab = 6000
	zhVocab = 2500
	topics  = 200
)

// Corpus returns 2·Pairs messages, sessions in time order.
func Corpus(o Options) []core.Message {
	o.setDefaults()
	r := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	en, zh := enWords(), zhWords()
	zEn := rand.NewZipf(r, 1.07, 8, enVocab-1)
	zZh := rand.NewZipf(r, 1.07, 8, zhVocab-1)
	sessions := (o.Pairs + o.PerSession - 1) / o.PerSession
	step := o.Span / time.Duration(max(sessions, 1))
	msgs := make([]core.Message, 0, 2*o.Pairs)
	for s := 0; s < sessions; s++ {
		ns := o.Namespaces[s%len(o.Namespaces)]
		id := fmt.Sprintf("sess-%06d", s)
		at := o.Start.Add(time.Duration(s)*step + time.Duration(r.IntN(3600))*time.Second)
		topic := r.IntN(topics)
		// Each topic favours a few dozen words, which gives sessions their
		// own vocabulary on top of the Zipf background.
		topicEn := func() string { return en[(topic*37+r.IntN(40))%enVocab] }
		topicZh := func() string { return zh[(topic*13+r.IntN(20))%zhVocab] }
		sentence := func() string {
			var b strings.Builder
			if r.Float64() < o.Chinese {
				for i := 0; i < 6+r.IntN(10); i++ {
					if r.IntN(4) == 0 {
						b.WriteString(topicZh())
					} else {
						b.WriteString(zh[zZh.Uint64()])
					}
				}
				b.WriteString("。")
				return b.String()
			}
			n := 6 + r.IntN(14)
			for i := 0; i < n; i++ {
				if i > 0 {
					b.WriteByte(' ')
				}
				if r.IntN(4) == 0 {
					b.WriteString(topicEn())
				} else {
					b.WriteString(en[zEn.Uint64()])
				}
			}
			b.WriteString(".")
			return b.String()
		}
		for p := 0; p < o.PerSession && len(msgs) < 2*o.Pairs; p++ {
			t := at.Add(time.Duration(p) * 3 * time.Minute)
			msgs = append(msgs,
				core.Message{Namespace: ns, Session: id, Time: t, Role: core.RoleUser, Speaker: "user", Text: sentence()},
				core.Message{Namespace: ns, Session: id, Time: t.Add(time.Minute), Role: core.RoleAssistant, Speaker: "assistant", Text: sentence() + " " + sentence()})
		}
	}
	return msgs
}

// Word returns the i-th English word of the vocabulary, most frequent
// first, for building queries.
func Word(i int) string { return enWords()[i%enVocab] }

// ZhWord returns the i-th Chinese word of the vocabulary.
func ZhWord(i int) string { return zhWords()[i%zhVocab] }

var enCache, zhCache []string

// enWords makes pronounceable pseudo-words from syllables; the first few
// hundred are real English words so that queries read naturally.
func enWords() []string {
	if enCache != nil {
		return enCache
	}
	words := strings.Fields(common)
	seen := map[string]bool{}
	for _, w := range words {
		seen[w] = true
	}
	syl := strings.Fields("ka lo mi ne ru sa ti vo be da fe gi ho ju ko la ma ni po qua re si tu va we xi yo za bri cla dro fle gra pla sto tre")
	r := rand.New(rand.NewPCG(11, 13))
	for len(words) < enVocab {
		w := ""
		for i := 0; i < 2+r.IntN(2); i++ {
			w += syl[r.IntN(len(syl))]
		}
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	enCache = words
	return words
}

func zhWords() []string {
	if zhCache != nil {
		return zhCache
	}
	chars := []rune("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严龙飞")
	r := rand.New(rand.NewPCG(17, 19))
	seen := map[string]bool{}
	var words []string
	for len(words) < zhVocab {
		w := string(chars[r.IntN(len(chars))]) + string(chars[r.IntN(len(chars))])
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	zhCache = words
	return words
}

const common = `time year people way day man thing woman life child world school state family student group country problem hand part place case week company system program question work government number night point home water room mother area money story fact month lot right study book eye job word business issue side kind head house service friend father power hour game line end member law car city community name president team minute idea kid body information back parent face others level office door health person art war history party result change morning reason research girl guy moment air teacher force education foot boy age policy music market sense nation plan college interest death experience effect class control care field development role effort rate heart drug show leader light voice wife police mind price report decision son view relationship town road arm difference value building action model season society tax director position player record paper space ground form event official matter center couple site project activity star table need court oil situation cost industry figure street image phone data picture practice piece land product doctor wall patient worker news test movie north love support technology step baby computer type attention film tree source organization hair window evidence population truth song opportunity rock heat trip budget deploy server memory travel temple garden coffee ticket flight hotel concert guitar painting recipe marathon bicycle camera novel invoice latency index search vector meeting kyoto passport birthday dinner weekend holiday`
