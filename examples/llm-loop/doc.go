// Command llm-loop is a complete chat loop that gives an LLM a long-term
// memory: it talks to any OpenAI-compatible /v1/chat/completions endpoint
// (OpenAI, vLLM, Ollama, llama.cpp server, LiteLLM, ...) through the
// official Go client, github.com/openai/openai-go, with HuiMemory's tools.
//
// Each question goes out with the memory-rules system prompt
// ([tools.Prompt]) and the recall_memory/recall_by_id schemas in the
// OpenAI form ([tools.SchemasJSON]). When the model calls a tool, the loop
// runs it with one line, [tools.Dispatcher.Dispatch], appends the text as
// a tool message and calls the model again, until it answers or
// -max-rounds calls were made (the last one with tool_choice "none"). With
// -save (the default) each question and answer is stored in memory, so the
// next chat can recall it.
//
//	go run . -ingest ../quickstart/conversation.jsonl "Where did I want to stay in Kyoto?"
//
// README.md in this folder lists the flags. main_test.go runs the built
// program against a fake LLM that speaks the chat-completions protocol.
package main
