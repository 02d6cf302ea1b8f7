// Package kernel is takeover mode's memory kernel: the host keeps no
// conversation store of its own, and HuiMemory owns short-term and
// long-term memory and context assembly.
//
// [Kernel.Append] stores each message durably. [Kernel.Context] returns
// the exact messages to send to the LLM for a new user message, within a
// token budget:
//
//  1. a system message with the memory rules (when the budget allows), a
//     short profile of lasting facts about the user (preferences,
//     decisions, identity, milestones, drawn from extractor memories and
//     ranked by importance and recency) and the long-term memories
//     recalled for the new message, from other sessions and from older
//     parts of this one, with their anchors so the LLM can walk them with
//     recall_by_id; no recalled turn repeats one in the recent window;
//  2. the most recent turns of the session, whole turns only, newest kept
//     first;
//  3. the new user message, last.
//
// The tool schemas (recall_memory, recall_by_id) come with it, so the LLM
// can search further; their tokens count against the budget too.
//
// # The budget
//
// Tokens are counted with a real tokenizer (tiktoken's o200k_base or
// cl100k_base, embedded, no download), plus [MessageOverhead] tokens per
// chat message for the chat format. The budget B is spent in this order,
// and the total never exceeds it:
//
//   - the new user message; if it alone does not fit, its text is cut with
//     a visible marker ("[… N tokens cut …]"). Storage keeps it whole;
//   - the tool schemas, if they take at most a third of what is left;
//   - the memory rules, if they take at most a third of what is left, else
//     a one-line version, else none;
//   - of what is left (R): the profile up to ProfileShare·R, the recalled
//     memories up to MemoryShare·R, and the recent turns the rest,
//     including what the first two left unused. If not even the newest
//     turn fits, it is cut with a marker rather than dropped.
//
// The kernel is safe for concurrent use; it holds no state besides its
// options.
package kernel
