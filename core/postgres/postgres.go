package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/postgres/migrations"
)

// Config is the PostgreSQL backend's configuration: storage.postgres in
// the engine's configuration file.
type Config = core.PostgresConfig

// setDefaults fills the zero fields of c.
func setDefaults(c *Config) {
	if c.TxRetries == 0 {
		c.TxRetries = 5
	}
	if c.MaxConns == 0 {
		c.MaxConns = 16
	}
}

// Validate checks a configuration, the DSN included.
func Validate(c Config) error {
	if c.DSN == "" {
		return fmt.Errorf("%w: postgres: storage.postgres.dsn is empty", core.ErrInvalid)
	}
	if _, err := pgxpool.ParseConfig(c.DSN); err != nil {
		// pgconn leaves a password out of its message.
		return fmt.Errorf("%w: postgres: storage.postgres.dsn: %v", core.ErrInvalid, err)
	}
	if c.MaxConns < 0 || c.TxRetries < 0 {
		return fmt.Errorf("%w: postgres: max_conns and tx_retries must not be negative", core.ErrInvalid)
	}
	return nil
}

// DB is an open PostgreSQL backend: a connection pool on a migrated
// database. It is safe for concurrent use, and any number of processes
// may open the same database.
type DB struct {
	pool    *pgxpool.Pool
	cfg     Config
	version int
	// parked holds connections of finished read-only store
	// transactions (kvpark.go).
	parked parking
}

// Open connects to the database and applies the missing migrations
// (unless cfg.NoMigrate).
func Open(ctx context.Context, cfg Config) (*DB, error) {
	setDefaults(&cfg)
	if err := Validate(cfg); err != nil {
		return nil, err
	}
	pc, err := pgxpool.ParseConfig(cfg.DSN)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if cfg.MaxConns > 0 {
		pc.MaxConns = cfg.MaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres: connecting: %w", err)
	}
	db := &DB{pool: pool, cfg: cfg}
	if err := db.start(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

func (db *DB) start(ctx context.Context) error {
	if !db.cfg.NoMigrate {
		if _, err := migrations.Apply(ctx, db.pool, 0); err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
	}
	v, err := migrations.Version(ctx, db.pool)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if v != migrations.Latest() {
		return fmt.Errorf("postgres: schema version %d, this binary needs %d (open without no_migrate to upgrade)", v, migrations.Latest())
	}
	db.version = v
	return nil
}

// Close closes the pool.
func (db *DB) Close() {
	db.parked.close()
	db.pool.Close()
}

// Pool returns the connection pool.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// SchemaVersion returns the schema version of the database.
func (db *DB) SchemaVersion() int { return db.version }

// retryable reports whether err is a serialization failure or a
// deadlock, after which the whole transaction may be run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// InTx runs fn in a READ COMMITTED transaction and commits it, running it
// again from the start (up to Config.TxRetries times) when it fails on a
// deadlock or a serialization failure. fn must not have effects outside
// the transaction that cannot be repeated.
func (db *DB) InTx(ctx context.Context, fn func(pgx.Tx) error) error {
	var err error
	for attempt := 0; attempt <= db.cfg.TxRetries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt*attempt) * 5 * time.Millisecond):
			}
		}
		err = pgx.BeginFunc(ctx, db.pool, fn)
		if !retryable(err) {
			return err
		}
	}
	return fmt.Errorf("postgres: gave up after %d retries: %w", db.cfg.TxRetries, err)
}

// Name names the database for messages: host, port and database, never
// the password.
func (db *DB) Name() string {
	c := db.pool.Config().ConnConfig
	return fmt.Sprintf("%s on %s:%d", c.Database, c.Host, c.Port)
}
