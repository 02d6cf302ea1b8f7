// Package testplugins holds plugin programs that only tests build and run,
// each a main package in its own folder:
//
//   - faulty: an embedder, chunker or extractor (-kind) that misbehaves on
//     demand, by flag (-mode wrongdim, nan; -protocol 2; -noconfig) or by
//     magic words in its input (CRASH, PANIC, HANG, SLEEP:<file>).
package testplugins
