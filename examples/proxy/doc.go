// Command proxy is a host that talks to HuiMemory's memory proxy with the
// official OpenAI Go client (github.com/openai/openai-go/v3) and nothing
// else: it sends only the new user message and a session id, and
// `huimem serve --mode takeover --upstream URL` stores the message,
// assembles the context, calls the model, runs its memory tool calls and
// stores the answer.
//
//	huimem serve --mode takeover --upstream http://127.0.0.1:11434/v1 &
//	go run . -session trip "I'm allergic to peanuts."
//	go run . -session dinner -stream "Any ideas for dinner? Remember my allergy."
//	go run . -demo          # three sessions; the third recalls the first
//
// See README.md and docs/takeover.md.
package main
