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
	os.Exit(code)
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
