// Command faulty is a test plugin that misbehaves on demand. Tests build it
// and run it through plugins/host as a real subprocess.
//
// Flags:
//
//	-kind embedder|chunker|extractor   which plugin to serve (default embedder)
//	-mode ok|wrongdim|nan              embedder: answer well, with vectors one
//	                                   too long, or with a NaN
//	-dim N                             embedder: the dimension Info reports (8)
//	-protocol N                        speak plugin protocol version N (1)
//	-noconfig                          take no options
//
// Magic words anywhere in a text, a message or a chunk's content:
//
//	CRASH          the process kills itself (like kill -9) mid-call
//	PANIC          the call panics, which ends the process
//	HANG           the call never returns and ignores cancellation
//	SLEEP:<file>   writes its pid to <file>, then sleeps a minute
//
// Its Version is "pid=<pid>", so that tests can find the process. The
// extractor returns one memory whose facts echo its options.
package main
