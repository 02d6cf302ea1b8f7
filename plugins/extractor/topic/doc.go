// Package topic is HuiMemory's built-in topic extractor: it gives each
// chunk a short keyword label, the 话题 shown on every recall hit, such as
// "ollama / models / local" or "本地模型 / 部署". [Extractor] satisfies
// core.Extractor and returns one core.Memory{Type: "topic", Topic: label}
// per chunk, or none when nothing stands out; the engine copies the first
// topic it gets into the chunk's Topic field.
//
// It needs no model and no network, is deterministic, and labels tens of
// thousands of chunks a second.
//
// # The labelling rule
//
// The chunk's text (its Text without the transcript's message header
// lines, or its messages' texts) is read once, and [Label] collects two
// kinds of keyword:
//
//   - English (and other non-Han) words: runs of letters and digits,
//     lower-cased, of at least three letters or a two-letter acronym in
//     capitals ("AI"), minus a list of stop words (function words, fillers
//     such as "thanks", generic verbs such as "use" or "want", role names
//     and URL parts). Plurals and -ing/-ed endings are folded for counting
//     ("models" and "model", "deploying" and "deployed"), and a word is
//     shown in its most frequent form (ties: the first).
//   - Chinese phrases: Han text is cut into segments at function
//     characters (的, 了, 是, 在, 我, 你, 这, 那, ...); each segment gives
//     its character bigrams, minus common words (我们, 什么, 可以, 问题,
//     ...). Bigrams that occur at least twice are taken greedily, most
//     frequent first (ties: first appearance), each only where it does not
//     overlap a bigram already taken, so that the junk bigram across two
//     words ("地模" in "本地模型") loses to the words themselves. Taken
//     bigrams that follow each other are chained into runs of up to three
//     bigrams, and every whole-bigram part of a run counts as an
//     occurrence of that phrase: "本地模型" three times and "部署" twice
//     give the phrases 本地模型 (3), 本地 (3), 模型 (3) and 部署 (2).
//
// A keyword stands out when it occurs at least [MinCount] (2) times.
// Keywords are ranked by count, then by length in bigrams (a Chinese
// phrase beats its parts when they always occur together), then by first
// appearance. The label is the first 1 to [MaxKeywords] (3) of them,
// skipping any that contains or is contained in one already chosen, joined
// with " / ". A text where no keyword occurs twice has no label.
package topic
