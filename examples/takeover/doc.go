// Command takeover is a host that keeps no conversation history of its
// own: HuiMemory's memory kernel (core/kernel) stores every message and
// assembles the exact messages to send to the LLM.
//
// It plays three sessions with scripted assistant replies (no LLM is
// called): in session 1 the user says where they live and what they are
// allergic to, session 2 is about something else, and in session 3 the
// user asks a question that needs session 1. It prints the messages the
// kernel assembled for session 3, whose memory block recalls session 1's
// turn with its anchor, and how the token budget was spent.
//
// Run it from this folder:
//
//	go run .                       # a scratch home, budget 3000 tokens
//	go run . -budget 400 -home /tmp/mem
//
// See docs/takeover.md for the kernel and the memory proxy.
package main
