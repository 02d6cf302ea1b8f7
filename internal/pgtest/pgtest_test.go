package pgtest

import (
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestFreshDatabasePerTest(t *testing.T) {
	var names []string
	for range 2 {
		dsn := DSN(t)
		c, err := pgx.Connect(t.Context(), dsn)
		if err != nil {
			t.Fatalf("connecting to %s: %v", dsn, err)
		}
		var db string
		var tables int
		if err := c.QueryRow(t.Context(), "SELECT current_database(), (SELECT count(*) FROM pg_tables WHERE schemaname = 'public')").Scan(&db, &tables); err != nil {
			t.Fatal(err)
		}
		if tables != 0 {
			t.Errorf("database %s has %d tables, want a fresh one", db, tables)
		}
		if _, err := c.Exec(t.Context(), "CREATE TABLE x (a int)"); err != nil {
			t.Fatal(err)
		}
		c.Close(t.Context())
		names = append(names, db)
	}
	if names[0] == names[1] {
		t.Errorf("two DSN calls gave the same database %s", names[0])
	}
}

func TestSettings(t *testing.T) {
	c, err := pgx.Connect(t.Context(), DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(t.Context())
	for _, tc := range []struct{ name, want string }{
		{"fsync", "off"},
		{"listen_addresses", "127.0.0.1"},
	} {
		var got string
		if err := c.QueryRow(t.Context(), "SELECT current_setting($1)", tc.name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s = %q, want %q", tc.name, got, tc.want)
		}
	}
	var super bool
	if err := c.QueryRow(t.Context(), "SELECT rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&super); err != nil {
		t.Fatal(err)
	}
	if !super {
		t.Error("the test user is not a superuser")
	}
}

func TestStartStop(t *testing.T) {
	s, err := start()
	if err != nil {
		skipOrFail(t, err)
	}
	if _, err := os.Stat(s.Dir); err != nil {
		t.Fatalf("server folder: %v", err)
	}
	dsn := s.URL("postgres")
	c, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatalf("connecting: %v\n%s", err, s.Log())
	}
	c.Close(t.Context())
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Errorf("server folder %s still there after Stop (%v)", s.Dir, err)
	}
	if _, err := pgx.Connect(t.Context(), dsn); err == nil {
		t.Error("the server still answers after Stop")
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}
