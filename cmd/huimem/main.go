// Command huimem is HuiMemory's command-line interface: it ingests
// conversations, recalls them by keyword, meaning and time, and maintains
// the home directory. Each subcommand lives in its own file; the work is
// done by the library (core/engine and friends).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdin *os.File, stdout, stderr *os.File) int {
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "huimem: "+oneLine(err.Error()))
	return exitCode(err)
}
