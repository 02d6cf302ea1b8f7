package cli

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

// Main runs p with the process's arguments and standard streams and
// returns the exit code, for a main function to pass to os.Exit. SIGINT
// and SIGTERM cancel the command's context.
func Main(p Program) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// HUIMEM_CPUPROFILE=FILE profiles the whole command, for finding where
	// a one-shot command's time goes.
	if path := os.Getenv("HUIMEM_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			pprof.StartCPUProfile(f)
			defer f.Close()
		}
	}
	code := p.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	pprof.StopCPUProfile()
	stop()
	// HUIMEM_PEAK_RSS_FILE=FILE writes the process's own peak RSS (see
	// writePeakRSS) for `huimem-bench cold`.
	if path := os.Getenv("HUIMEM_PEAK_RSS_FILE"); path != "" {
		writePeakRSS(path)
	}
	return code
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

// Run executes one command line of p and returns the exit code. Errors
// are printed as one line on stderr; so is a panic, whose stack is printed
// only when HUIMEM_DEBUG is set.
func (p Program) Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "%s: internal error: %v (please report it; set HUIMEM_DEBUG=1 for details)\n", p.Name, r)
			if os.Getenv("HUIMEM_DEBUG") != "" {
				stderr.Write(debug.Stack())
			}
			code = exitError
		}
	}()
	root := p.root(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, p.Name+": "+oneLine(err.Error()))
	return exitCode(err)
}
