package locomo

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
)

// offTopicTemplates are question shapes a user might ask a memory; %s is
// an off-topic subject.
var offTopicTemplates = []string{
	"What did I say about %s?",
	"When did we talk about %s?",
	"Do you remember my %s?",
	"How much did the %s cost?",
	"What is my opinion on %s?",
	"Which %s did I choose in the end?",
	"Tell me what we decided about %s.",
	"Who recommended the %s to me?",
	"Why did I stop using %s?",
	"Where did I put the %s?",
	"What was the problem with %s and %s?",
	"Did I ever mention %s?",
	"Remind me of the plan for %s.",
	"How long have I been into %s?",
	"%s",
	"%s %s",
}

// offTopicSubjects are subjects from domains far from everyday chat.
var offTopicSubjects = []string{
	"zebra", "quantum chromodynamics", "xylophone", "narwhal", "tungsten carbide", "sousaphone",
	"stalactites", "origami cranes", "submarine sonar", "platypus", "obsidian", "bagpipes",
	"lichen", "zeppelin", "axolotl", "meteorology radar", "harpsichord", "walrus", "geode",
	"semaphore flags", "abacus", "chameleon", "trebuchet", "kombucha scoby", "sextant",
	"tapir", "theremin", "basalt columns", "hovercraft", "okapi", "quasar", "gyroscope",
	"mongoose", "accordion", "ferrofluid", "yak wool", "marimba", "pangolin", "barometer",
	"catapult", "iguana", "sundial", "nebula", "lemur", "pulley system", "sequoia",
	"anemometer", "flamingo", "glockenspiel", "tardigrade", "vulcanology", "cuttlefish",
	"periscope", "manatee", "didgeridoo", "tessellation", "wombat", "hieroglyphs", "bobsled",
	"krill", "lighthouse lens", "armadillo", "cryogenics", "macramé", "chinchilla", "fjord",
	"zither", "puffin", "isotopes", "gondola", "hedgehog", "magma", "banjo", "coral polyps",
	"dirigible", "ocelot", "tuba", "permafrost", "jellyfish", "samovar",
}

// Regular expressions here are compiled on first use, so that a process
// that never needs them does not pay for them at init.
var wordRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[\p{L}\p{N}]+`) })

// OffTopic returns n seeded questions about subjects that no word of
// corpus mentions: questions whose honest answer is "nothing found". The
// questions keep the ordinary words of a question ("what", "remember",
// "decided"), which the corpus may well contain.
func OffTopic(seed uint64, n int, corpus string) []string {
	words := map[string]bool{}
	for _, w := range wordRE().FindAllString(strings.ToLower(corpus), -1) {
		words[w] = true
	}
	var subjects []string
	for _, s := range offTopicSubjects {
		ok := true
		for _, w := range wordRE().FindAllString(s, -1) {
			// Reject a subject if the corpus has the word or a plural or
			// singular of it.
			if words[w] || words[w+"s"] || words[strings.TrimSuffix(w, "s")] {
				ok = false
			}
		}
		if ok {
			subjects = append(subjects, s)
		}
	}
	if len(subjects) < 2 {
		return nil
	}
	r := rand.New(rand.NewPCG(seed, 0x0ff7091c))
	out := make([]string, 0, n)
	for range n {
		t := offTopicTemplates[r.IntN(len(offTopicTemplates))]
		args := make([]any, strings.Count(t, "%s"))
		for i := range args {
			args[i] = subjects[r.IntN(len(subjects))]
		}
		out = append(out, fmt.Sprintf(t, args...))
	}
	return out
}

// SystemPrompt is a realistic agent system prompt of about 1,500
// characters, for measuring recall with a polluted query: agents often
// paste their whole prompt in front of the user's question.
const SystemPrompt = `You are Aria, a helpful, careful and friendly personal assistant that runs inside the user's desktop agent. You have access to a long-term memory of earlier conversations through the recall_memory tool, to the user's calendar, and to a sandboxed shell. Follow these rules at all times.

1. Be concise. Prefer short paragraphs and bullet lists over long prose. Use the user's language; if the user writes in Chinese, answer in Chinese.
2. Never invent facts about the user. When the memory does not contain an answer, say so plainly and ask a clarifying question instead of guessing.
3. Respect privacy: do not repeat passwords, keys, addresses or health information unless the user asks for them explicitly in the current turn.
4. When you use a memory, cite it by its id in square brackets, for example [7k2m9q], so that the user can open it.
5. Dates: the current date is given by the host. Resolve relative dates such as "last Tuesday" against it and state the absolute date you used.
6. Tools: call at most three tools per turn. Summarise tool output; never paste raw JSON to the user. If a tool fails, explain what failed and what you will try next.
7. Safety: refuse requests that would cause harm, and explain briefly why. Do not execute shell commands that delete files or change system settings without confirmation.
8. Formatting: use Markdown. Code goes in fenced blocks with a language tag. Keep tables under eight columns.
9. Tone: warm but professional; no emojis unless the user uses them first.

Conversation so far has been summarised by the host. The user's latest message follows.

User: `
