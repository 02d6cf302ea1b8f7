// Package general is HuiMemory's built-in heuristic memory extractor, for
// Chinese and English. [Extractor] satisfies core.Extractor: it reads a
// chunk's text and returns typed memories that the engine stores on the
// chunk and can filter recall by (type:decision and the like).
//
// It needs no model and no network, is deterministic, and handles tens of
// thousands of chunks a second, so it can run on every ingest.
//
// # Rules
//
// The chunk's text (its Text when the chunker cut one, without the
// transcript's message header lines, else its messages' texts) is split
// into sentences at line breaks, after 。！？；… and after . ! ? ; that are
// followed by white space. Each sentence is matched, lower-cased, against
// keyword tables for five memory types (keywords.go holds them all):
//
//	decision    we decided, let's go with, we chose, settled on, 决定, 就用, 选定, 敲定, 采用
//	preference  I prefer, I like, I hate, I'd rather, my favorite, 我喜欢, 我更喜欢, 不喜欢, 偏好
//	milestone   finished, launched, shipped, got the job, released, 完成了, 上线了, 发布了, 毕业了
//	problem     error, bug, doesn't work, failed, crash, timeout, 报错, 出问题, 失败, 崩溃, 超时
//	emotional   I'm so happy, excited, frustrated, worried, anxious, 开心, 难过, 焦虑, 担心, 沮丧
//
// English keywords match on word boundaries ("error*" also matches
// "errors"); Chinese ones anywhere. Decision, milestone and problem
// keywords do not count after a negation ("haven't finished", "no errors",
// "没决定"). A sixth table of resolutions (fixed, solved, resolved, works
// now, 解决了, 修好了, 修复了) marks a problem as overcome: a problem
// sentence followed, in the same or a later sentence of the chunk, by a
// resolution counts as a milestone, not a problem, and resolution
// sentences are milestone facts themselves.
//
// The result is at most one [core.Memory] per type, in the order of
// [Types], with Extractor "general". Its Facts are the first
// [MaxFacts] sentences that triggered it, each cut to [MaxFactRunes] runes,
// and its Entities the names found in those sentences (see entities.go):
// quoted terms, name-like Latin words ("Kyoto", "New York", "PostgreSQL",
// and any Latin word inside Chinese text), and Chinese organisation-like
// names ending in 公司, 大学, 团队, 项目 and similar suffixes. Topic is
// left to the topic extractor.
package general
