// Package startheap lets a short-lived process put off its first garbage
// collection until its heap reaches a given size, the way the Go
// compiler does for itself (cmd/compile's base.AdjustStartingHeap).
//
// The runtime's first collection comes when the heap reaches 4 MiB (at
// GOGC 100). A one-shot `huimem recall` of a long question allocates
// somewhat more than that and exits some 20 ms after it starts, so the
// collection is work that frees nothing the process would have used: on
// the BEAM dev questions a cold recall took 2.5–3 ms less, and a little
// less memory, without it. Raise sets GOGC so that the first collection
// waits for the goal, and puts GOGC back once that collection has run,
// so a process that goes on to allocate more is collected as before.
//
// Leaf package: it imports nothing of ours.
package startheap
