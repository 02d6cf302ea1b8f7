package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNotInstalled means no PostgreSQL binaries were found.
var ErrNotInstalled = errors.New("pgtest: PostgreSQL is not installed (no initdb and pg_ctl on PATH or under /usr/lib/postgresql/*/bin)")

// runAs is the user the server runs as when the tests run as root.
const runAs = "postgres"

// Server is a running PostgreSQL server owned by the test process. Its
// methods are safe for concurrent use.
type Server struct {
	// Dir is the temporary folder: the data directory is Dir/data, the
	// unix socket lives in Dir and the log is Dir/postgres.log.
	Dir string
	// Port is the loopback TCP port.
	Port int
	// User is the superuser name (initdb -U).
	User string

	bin     string // folder of initdb, pg_ctl, postgres
	asUser  string // "" or the user to runuser as
	stopped atomic.Bool
	dbs     atomic.Int64
}

// FindBin returns the folder holding initdb and pg_ctl: the one on PATH,
// or else the newest /usr/lib/postgresql/*/bin.
func FindBin() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if p, err := filepath.EvalSymlinks(p); err == nil {
			dir := filepath.Dir(p)
			if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
				return dir, nil
			}
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
				return d, nil
			}
		}
	}
	return "", ErrNotInstalled
}

// skipOrFail skips the test when PostgreSQL is missing outside CI, and
// fails it otherwise.
func skipOrFail(tb testing.TB, err error) {
	tb.Helper()
	if errors.Is(err, ErrNotInstalled) && os.Getenv("CI") == "" {
		tb.Skipf("%v; install it (apt-get install postgresql) to run this test", err)
	}
	tb.Fatalf("starting PostgreSQL: %v", err)
}

// Start starts a private server for tb and stops it, removing its folder,
// in tb.Cleanup.
func Start(tb testing.TB) *Server {
	tb.Helper()
	s, err := start()
	if err != nil {
		skipOrFail(tb, err)
	}
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Errorf("stopping PostgreSQL: %v", err)
		}
	})
	return s
}

func start() (*Server, error) {
	bin, err := FindBin()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, User: "postgres"}
	if os.Geteuid() == 0 {
		s.asUser = runAs
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, fmt.Errorf("creating the server folder: %w", err)
	}
	s.Dir = dir
	if s.asUser != "" {
		u, err := user.Lookup(s.asUser)
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root needs the %q user: %w", s.asUser, err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("giving %s to %s: %w", dir, s.asUser, err)
		}
	}
	if out, err := s.run("initdb", "-D", filepath.Join(dir, "data"), "-U", s.User, "--auth=trust",
		"-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	// A port found free may be taken before the server binds it: try a
	// few.
	var lastErr error
	for range 3 {
		port, err := freePort()
		if err != nil {
			lastErr = err
			continue
		}
		s.Port = port
		opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off "+
			"-c full_page_writes=off -c max_connections=200 -c shared_buffers=64MB", port, dir)
		out, err := s.run("pg_ctl", "-D", filepath.Join(dir, "data"), "-o", opts,
			"-l", filepath.Join(dir, "postgres.log"), "-w", "-t", "60", "start")
		if err == nil {
			return s, nil
		}
		log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
		lastErr = fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	os.RemoveAll(dir)
	return nil, lastErr
}

// run runs one of the server's programs, as the unprivileged user when
// the tests run as root.
func (s *Server) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(s.bin, prog)
	var cmd *exec.Cmd
	if s.asUser != "" {
		cmd = exec.Command("runuser", append([]string{"-u", s.asUser, "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = os.TempDir()
	return cmd.CombinedOutput()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Stop stops the server at once and removes its folder. Stopping twice
// is a no-op.
func (s *Server) Stop() error {
	if s.stopped.Swap(true) {
		return nil
	}
	out, err := s.run("pg_ctl", "-D", filepath.Join(s.Dir, "data"), "-m", "immediate", "-w", "stop")
	rmErr := os.RemoveAll(s.Dir)
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %w\n%s", err, out)
	}
	return rmErr
}

// URL returns the connection string of database db over loopback TCP.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", s.User, s.Port, db)
}

// CreateDB creates a new, empty database and returns its connection
// string; the database is dropped in tb.Cleanup.
func (s *Server) CreateDB(tb testing.TB) string {
	tb.Helper()
	name := fmt.Sprintf("t%d_%d", os.Getpid(), s.dbs.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.exec(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("creating database %s: %v", name, err)
	}
	tb.Cleanup(func() {
		if s.stopped.Load() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("dropping database %s: %v", name, err)
		}
	})
	return s.URL(name)
}

func (s *Server) exec(ctx context.Context, sql string) error {
	c, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, sql)
	return err
}

// Log returns the server's log so far, for failure messages.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "postgres.log"))
	return strings.TrimSpace(string(b))
}

var shared struct {
	mu      sync.Mutex
	enabled bool // Main is running the tests
	srv     *Server
	err     error
}

// Main runs the package's tests with one shared server, started by the
// first test that asks for it and stopped when the tests end. Use it from
// TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	shared.mu.Lock()
	shared.enabled = true
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.srv != nil {
		if err := shared.srv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// Shared returns the package's shared server, starting it on first use.
// Without [Main] it starts a private server for tb.
func Shared(tb testing.TB) *Server {
	tb.Helper()
	shared.mu.Lock()
	if !shared.enabled {
		shared.mu.Unlock()
		return Start(tb)
	}
	if shared.srv == nil && shared.err == nil {
		shared.srv, shared.err = start()
	}
	s, err := shared.srv, shared.err
	shared.mu.Unlock()
	if err != nil {
		skipOrFail(tb, err)
	}
	return s
}

// DSN returns the connection string of a new, empty database on the
// shared server (see [Shared]), dropped in tb.Cleanup.
func DSN(tb testing.TB) string {
	tb.Helper()
	return Shared(tb).CreateDB(tb)
}
