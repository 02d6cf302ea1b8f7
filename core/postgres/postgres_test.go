package postgres

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/postgres/migrations"
	"github.com/huimemory/huimemory/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// open opens a fresh, migrated database.
func open(t testing.TB) *DB {
	t.Helper()
	db, err := Open(t.Context(), Config{DSN: pgtest.DSN(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		okay bool
	}{
		{Config{DSN: "postgres://u@localhost/db"}, true},
		{Config{}, false},
		{Config{DSN: "postgres://u@localhost:notaport/db"}, false},
		{Config{DSN: "postgres://u@localhost/db", MaxConns: -1}, false},
		{Config{DSN: "postgres://u:s3cret@localhost:notaport/db"}, false},
	} {
		err := Validate(tc.cfg)
		if (err == nil) != tc.okay {
			t.Errorf("Validate(%+v) = %v, want ok=%v", tc.cfg, err, tc.okay)
		}
		if err != nil && (!errors.Is(err, core.ErrInvalid) || strings.Contains(err.Error(), "s3cret")) {
			t.Errorf("Validate(%+v) = %v; want core.ErrInvalid, without the password", tc.cfg, err)
		}
	}
}

// TestOpenTwice opens a database from two servers, the second without
// migrating.
func TestOpenTwice(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, err := Open(t.Context(), Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(t.Context(), Config{DSN: dsn, NoMigrate: true})
	if err != nil {
		t.Fatalf("second server: %v", err)
	}
	defer b.Close()
	if want := migrations.Latest(); a.SchemaVersion() != want || b.SchemaVersion() != want {
		t.Errorf("schema versions %d and %d, want %d", a.SchemaVersion(), b.SchemaVersion(), want)
	}
}

func TestOpenBehindWithNoMigrate(t *testing.T) {
	if _, err := Open(t.Context(), Config{DSN: pgtest.DSN(t), NoMigrate: true}); err == nil {
		t.Error("Open with no_migrate on an empty database succeeded")
	}
}
