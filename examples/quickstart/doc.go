// Command quickstart is HuiMemory as a Go library in about forty lines and
// one import, the root package huimemory: it opens a home, ingests the
// sample conversation (conversation.jsonl, beside this file), recalls a
// turn, walks to the turn before it with its prev id, and runs one LLM tool
// call through the memory's tool dispatcher.
//
// Run it from this folder:
//
//	go run .                  # a scratch home, removed afterwards
//	go run . -home /tmp/mem   # keep the home, then try `huimem --home /tmp/mem recall Kyoto`
//
// The same conversation is embedded in the huimem binary for `huimem demo`
// (see package examples).
package main
