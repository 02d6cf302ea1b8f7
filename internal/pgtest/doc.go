// Package pgtest starts a real, throw-away PostgreSQL server for tests.
//
// The server is made with initdb in a new temporary folder, listens on a
// free loopback port (and on a unix socket inside that folder), runs with
// fsync off, and is stopped and its folder removed when the tests are
// done. When the tests run as root, initdb and the server run as the
// unprivileged "postgres" user through runuser, because PostgreSQL refuses
// to run as root.
//
// One server per test package, a fresh database per test:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		dsn := pgtest.DSN(t) // a new, empty database, dropped after the test
//		...
//	}
//
// Without TestMain, [DSN] starts a server for the test alone. [Start]
// always starts a private server, stopped in t.Cleanup.
//
// When PostgreSQL is not installed the tests are skipped with a message,
// except in CI (CI=true), where a missing PostgreSQL fails them: .ci/run
// installs it.
package pgtest
