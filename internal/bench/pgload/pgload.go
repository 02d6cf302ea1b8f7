package pgload

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/huimemory/huimemory/internal/bench/loadtest"
)

// Options say which servers to start.
type Options struct {
	// Bin is the huimem binary.
	Bin string
	// DSN is the PostgreSQL database the servers share.
	DSN string
	// Servers is how many to start (default 3).
	Servers int
	// Env is added to the servers' environment after the storage
	// settings, such as HUIMEM_EMBEDDING_NAME=hash.
	Env []string
	// Dir holds the servers' homes; the default is a temporary folder
	// that Stop removes.
	Dir string
	// Log, when set, receives the servers' stderr, each line prefixed
	// with the server's number. [Cluster.Log] keeps it in any case.
	Log io.Writer
}

// Cluster is a set of running `huimem serve` processes on one database.
// Its methods are safe for concurrent use.
type Cluster struct {
	// URLs are the servers' base URLs, in order.
	URLs []string

	procs  []*proc
	dir    string
	rmDir  bool
	logMu  sync.Mutex
	log    bytes.Buffer
	logOut io.Writer
}

type proc struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // of Wait, once exited is closed
	mu     sync.Mutex
	killed bool
}

// Start starts the servers and waits until each answers /healthz. On an
// error the servers already started are stopped.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	if o.Bin == "" || o.DSN == "" {
		return nil, fmt.Errorf("pgload: need a huimem binary and a DSN")
	}
	if o.Servers <= 0 {
		o.Servers = 3
	}
	c := &Cluster{dir: o.Dir, logOut: o.Log}
	if c.dir == "" {
		dir, err := os.MkdirTemp("", "huimem-pgload-")
		if err != nil {
			return nil, fmt.Errorf("pgload: creating the homes' folder: %w", err)
		}
		c.dir, c.rmDir = dir, true
	}
	env := append(os.Environ(),
		"HUIMEM_STORAGE_BACKEND=postgres",
		"HUIMEM_STORAGE_POSTGRES_DSN="+o.DSN,
		"HUIMEM_SERVER_TOKEN=",
	)
	env = append(env, o.Env...)
	addrs := make([]chan string, o.Servers)
	for i := range o.Servers {
		home := filepath.Join(c.dir, fmt.Sprintf("server%d", i))
		if err := os.MkdirAll(home, 0o755); err != nil {
			c.Stop()
			return nil, fmt.Errorf("pgload: creating %s: %w", home, err)
		}
		cmd := exec.Command(o.Bin, "--home", home, "serve", "--addr", "127.0.0.1:0")
		cmd.Env = env
		stderr, err := cmd.StderrPipe()
		if err != nil {
			c.Stop()
			return nil, fmt.Errorf("pgload: %w", err)
		}
		if err := cmd.Start(); err != nil {
			c.Stop()
			return nil, fmt.Errorf("pgload: starting server %d: %w", i, err)
		}
		p := &proc{cmd: cmd, exited: make(chan struct{})}
		c.procs = append(c.procs, p)
		addrs[i] = make(chan string, 1)
		lines := make(chan struct{})
		go c.readLog(i, stderr, addrs[i], lines)
		go func() {
			<-lines // Wait closes the pipe: read it to the end first
			p.err = cmd.Wait()
			close(p.exited)
		}()
	}
	for i, p := range c.procs {
		var url string
		select {
		case addr := <-addrs[i]:
			url = "http://" + addr
		case <-p.exited:
			c.Stop()
			return nil, fmt.Errorf("pgload: server %d exited before it listened (%v):\n%s", i, p.err, c.Log())
		case <-time.After(2 * time.Minute):
			c.Stop()
			return nil, fmt.Errorf("pgload: server %d printed no address within 2 minutes:\n%s", i, c.Log())
		case <-ctx.Done():
			c.Stop()
			return nil, ctx.Err()
		}
		if err := waitHealthy(ctx, url, p.exited); err != nil {
			c.Stop()
			return nil, fmt.Errorf("pgload: server %d: %w\n%s", i, err, c.Log())
		}
		c.URLs = append(c.URLs, url)
	}
	return c, nil
}

// readLog copies server i's stderr into the log and sends the address
// from its "serving ... on http://ADDR" line.
func (c *Cluster) readLog(i int, r io.Reader, addr chan<- string, done chan<- struct{}) {
	defer close(done)
	sc := bufio.NewScanner(r)
	sent := false
	for sc.Scan() {
		line := fmt.Sprintf("[server %d] %s\n", i, sc.Text())
		c.logMu.Lock()
		c.log.WriteString(line)
		if c.logOut != nil {
			io.WriteString(c.logOut, line)
		}
		c.logMu.Unlock()
		if _, after, ok := strings.Cut(sc.Text(), " on http://"); ok && !sent {
			if f := strings.Fields(after); len(f) > 0 {
				addr <- f[0]
				sent = true
			}
		}
	}
}

func waitHealthy(ctx context.Context, url string, exited <-chan struct{}) error {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("exited before it was healthy")
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if resp, err := http.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("not healthy on %s within 2 minutes", url)
}

// Log returns what the servers wrote on stderr so far.
func (c *Cluster) Log() string {
	c.logMu.Lock()
	defer c.logMu.Unlock()
	return c.log.String()
}

// Kill sends SIGKILL to server i and waits until it is gone.
func (c *Cluster) Kill(i int) error {
	if i < 0 || i >= len(c.procs) {
		return fmt.Errorf("pgload: no server %d", i)
	}
	p := c.procs[i]
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("pgload: killing server %d: %w", i, err)
	}
	select {
	case <-p.exited:
		return nil
	case <-time.After(time.Minute):
		return fmt.Errorf("pgload: server %d still runs a minute after SIGKILL", i)
	}
}

// Stop stops the servers that still run with SIGTERM, waits for them (a
// minute at most, then SIGKILL), and removes the homes' folder if Start
// made it. It reports a server that exited badly without being killed.
func (c *Cluster) Stop() error {
	var errs []error
	for _, p := range c.procs {
		select {
		case <-p.exited:
			continue
		default:
		}
		p.cmd.Process.Signal(syscall.SIGTERM)
	}
	for i, p := range c.procs {
		select {
		case <-p.exited:
		case <-time.After(time.Minute):
			p.cmd.Process.Kill()
			<-p.exited
			errs = append(errs, fmt.Errorf("pgload: server %d did not stop within a minute of SIGTERM", i))
			continue
		}
		p.mu.Lock()
		killed := p.killed
		p.mu.Unlock()
		if p.err != nil && !killed {
			errs = append(errs, fmt.Errorf("pgload: server %d exited badly: %w", i, p.err))
		}
	}
	if c.rmDir {
		if err := os.RemoveAll(c.dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Result is what [Run] measured and found.
type Result struct {
	Report    *loadtest.Report
	Integrity *loadtest.Integrity
	// Killed is the server killed at half time, or -1.
	Killed int
	// Log is the servers' stderr.
	Log string
}

// Err returns nil when the load ran without errors, every acknowledged
// append was found again by recall, and the integrity check found
// nothing wrong; otherwise an error saying what went wrong.
func (r *Result) Err() error {
	var errs []error
	if r.Report.Errors > 0 {
		errs = append(errs, fmt.Errorf("%d requests failed on every server (first: %s)", r.Report.Errors, r.Report.FirstError))
	}
	if len(r.Report.Missing) > 0 {
		errs = append(errs, fmt.Errorf("%d acknowledged appends not found by recall (%s)", len(r.Report.Missing), strings.Join(r.Report.Missing[:min(8, len(r.Report.Missing))], ", ")))
	}
	if err := r.Integrity.Err(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Run starts the servers of o, runs the load lo over them, kills server
// kill (unless it is negative) with SIGKILL at half time, checks the
// store, and stops the servers. lo.URLs and lo.Halfway are set here. It
// returns an error when the load or the check could not run; what they
// found is in the result (see [Result.Err]).
func Run(ctx context.Context, o Options, lo loadtest.Options, kill int) (*Result, error) {
	c, err := Start(ctx, o)
	if err != nil {
		return nil, err
	}
	res := &Result{Killed: kill}
	defer func() { res.Log = c.Log() }()
	lo.URLs = c.URLs
	if kill >= 0 {
		lo.Halfway = func() error { return c.Kill(kill) }
	}
	rep, err := loadtest.Run(ctx, lo)
	res.Report = rep
	if err == nil {
		lo.Tag = rep.Tag
		res.Integrity, err = loadtest.Check(ctx, lo, rep)
	}
	if serr := c.Stop(); err == nil && serr != nil {
		err = serr
	}
	if err != nil {
		return res, fmt.Errorf("%w\nthe servers' log ends:\n%s", err, tail(c.Log(), 4000))
	}
	return res, nil
}

// tail returns the end of s, at most n bytes, from a line start.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
