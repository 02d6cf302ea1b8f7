// Command huimem is HuiMemory's command-line interface: it ingests
// conversations, recalls them by keyword, meaning and time, and maintains
// the home directory. Each subcommand lives in its own file; the work is
// done by the library (core/engine and friends).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// HUIMEM_CPUPROFILE=FILE profiles the whole command, for finding where
	// a one-shot command's time goes.
	if path := os.Getenv("HUIMEM_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			pprof.StartCPUProfile(f)
			defer f.Close()
		}
	}
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	pprof.StopCPUProfile()
	stop()
	// HUIMEM_PEAK_RSS_FILE=FILE writes the process's own peak RSS (see
	// writePeakRSS) for `bench cold`.
	if path := os.Getenv("HUIMEM_PEAK_RSS_FILE"); path != "" {
		writePeakRSS(path)
	}
	os.Exit(code)
}

// writePeakRSS writes the process's peak resident set size in bytes (the
// VmHWM line of /proc/self/status) to path; on systems without it, it
// writes nothing. The kernel's other figure, getrusage's ru_maxrss, is
// no good to a parent that measures its children: a child started by a Go
// program shares the parent's memory until it calls exec, and exec folds
// the parent's peak into the child's ru_maxrss, so a benchmark that holds
// its corpus in memory would report its own size for every child.
func writePeakRSS(path string) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				os.WriteFile(path, []byte(strconv.FormatInt(kb*1024, 10)), 0o600)
			}
			return
		}
	}
}

// run executes one command line and returns the exit code. Errors are
// printed as one line on stderr; so is a panic, whose stack is printed only
// when HUIMEM_DEBUG is set.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "huimem: internal error: %v (please report it; set HUIMEM_DEBUG=1 for details)\n", r)
			if os.Getenv("HUIMEM_DEBUG") != "" {
				stderr.Write(debug.Stack())
			}
			code = exitError
		}
	}()
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "huimem: "+oneLine(err.Error()))
	return exitCode(err)
}
