// Package render prints recall results in HuiMemory's text format, the one
// an LLM reads in tool output:
//
//	[id:a3f2c7 | prev: k7f2a1 | next: d2n7p3 | 相似度: 0.778]
//	📁 2026-W11/2026-03-05/chat_xxx.md:L55-L72 | 话题: 本地模型部署 | 2026-03-05 Thu 10:00:07
//	  55 | ### Alice (user) · 2026-03-05 Thu 10:00:07 +08:00
//	  56 | ...
//
// The line numbers are virtual: they are the chunk's lines in its session's
// transcript, computed for display. Stored text is never modified.
package render
