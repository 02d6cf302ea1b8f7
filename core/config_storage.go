package core

import "time"

// StorageConfig says where the engine keeps its files.
type StorageConfig struct {
	// Home is the data directory. It holds the store (huimem.db), the
	// search index (index/) and the transcripts (sessions/).
	Home string `mapstructure:"home" json:"home" yaml:"home"`
	// CacheDir holds decompressed sealed weeks; empty means <home>/cache.
	CacheDir string `mapstructure:"cache_dir" json:"cache_dir" yaml:"cache_dir"`
	// CacheTTLHours is how long an unused decompressed week stays cached.
	CacheTTLHours int `mapstructure:"cache_ttl_hours" json:"cache_ttl_hours" yaml:"cache_ttl_hours"`
	// CacheMaxMB bounds the cache's size on disk.
	CacheMaxMB int `mapstructure:"cache_max_mb" json:"cache_max_mb" yaml:"cache_max_mb"`
	// VectorCacheMB bounds the memory (Go heap) the vector search keeps
	// week segments of vectors in; the rest is read from the store's
	// memory map at each search (see core/vector). 0 means the default,
	// 512; -1 keeps no vectors in memory.
	VectorCacheMB int `mapstructure:"vector_cache_mb" json:"vector_cache_mb" yaml:"vector_cache_mb"`
	// LockWait bounds how long a command waits for another process's
	// write to the home (the writer lock, and readers letting go); 0
	// means the default, 30s. See docs/concurrency.md.
	LockWait time.Duration `mapstructure:"lock_wait" json:"lock_wait" yaml:"lock_wait"`
	// CompactAfterIngest compacts the store (huimem.db) at the end of an
	// ingest (for `huimem ingest`, of all its files) that grew it by more
	// than a quarter, so that the vectors lie in one run of full pages and a
	// recall maps only what it scans (see docs/performance.md).
	// A staged ingest (a large new file) writes its pages full and its
	// vectors in order, so its own growth does not count.
	// The same switch merges the search index's segments into one after
	// an ingest that grew it by a quarter (core/engine/merge.go).
	// Only the embedded backend has a file to compact. Nil means the
	// default, true.
	CompactAfterIngest *bool `mapstructure:"compact_after_ingest" json:"compact_after_ingest" yaml:"compact_after_ingest"`
	// Backend is where the store and the search index live: "embedded"
	// (the default: files in Home) or "postgres" (a PostgreSQL database
	// that any number of servers share; Home then keeps only transcripts
	// and caches). See docs/postgres.md.
	Backend string `mapstructure:"backend" json:"backend" yaml:"backend"`
	// Postgres configures the "postgres" backend.
	Postgres PostgresConfig `mapstructure:"postgres" json:"postgres" yaml:"postgres"`
}

// Storage backends.
const (
	BackendEmbedded = "embedded"
	BackendPostgres = "postgres"
)

// PostgresConfig is storage.postgres: the PostgreSQL backend.
type PostgresConfig struct {
	// DSN is a libpq connection string or URL, such as
	// "postgres://huimem@db.internal:5432/huimem?sslmode=verify-full".
	// Keep passwords out of the file: libpq's PGPASSWORD and ~/.pgpass
	// work, and so does HUIMEM_STORAGE_POSTGRES_DSN.
	DSN string `mapstructure:"dsn" json:"dsn" yaml:"dsn"`
	// MaxConns bounds the connection pool; 0 means 16.
	MaxConns int32 `mapstructure:"max_conns" json:"max_conns" yaml:"max_conns"`
	// NoMigrate opens the database without applying missing schema
	// migrations; opening then fails when the schema is behind.
	NoMigrate bool `mapstructure:"no_migrate" json:"no_migrate" yaml:"no_migrate"`
	// TxRetries is how many times a transaction that failed on a
	// serialization failure or a deadlock is run again; 0 means 5.
	TxRetries int `mapstructure:"tx_retries" json:"tx_retries" yaml:"tx_retries"`
	// HNSW searches vectors with pgvector's approximate HNSW index
	// (table vectors_hnsw, kept in step with the store) instead of each
	// server's exact cache. Opening fails when the database has no
	// pgvector extension. See docs/postgres.md.
	HNSW bool `mapstructure:"hnsw" json:"hnsw" yaml:"hnsw"`
	// NoLexicalCopy answers BM25 searches with SQL alone, instead of from
	// each server's in-memory copy of the lexical index (about 1.9 KB a
	// chunk; see docs/postgres.md).
	NoLexicalCopy bool `mapstructure:"no_lexical_copy" json:"no_lexical_copy" yaml:"no_lexical_copy"`
}

// DefaultLockWait is the default of storage.lock_wait.
const DefaultLockWait = 30 * time.Second

// DefaultVectorCacheMB is the default of storage.vector_cache_mb.
const DefaultVectorCacheMB = 512

// VectorCacheBytes returns storage.vector_cache_mb in bytes, as
// core/vector's Options.CacheBytes takes it: negative for no cache.
func (s StorageConfig) VectorCacheBytes() int64 {
	switch {
	case s.VectorCacheMB < 0:
		return -1
	case s.VectorCacheMB == 0:
		return DefaultVectorCacheMB << 20
	}
	return int64(s.VectorCacheMB) << 20
}

// setDefaults fills the storage section's unset fields with their
// documented defaults ([Config.SetDefaults]).
func (s *StorageConfig) setDefaults() {
	if s.Home == "" {
		s.Home = DefaultHome()
	}
	if s.CacheTTLHours == 0 {
		s.CacheTTLHours = 24
	}
	if s.CacheMaxMB == 0 {
		s.CacheMaxMB = 1024
	}
	if s.Backend == "" {
		s.Backend = BackendEmbedded
	}
	if s.Postgres.MaxConns == 0 {
		s.Postgres.MaxConns = 16
	}
	if s.Postgres.TxRetries == 0 {
		s.Postgres.TxRetries = 5
	}
	if s.LockWait == 0 {
		s.LockWait = DefaultLockWait
	}
	if s.VectorCacheMB == 0 {
		s.VectorCacheMB = DefaultVectorCacheMB
	}
	if s.CompactAfterIngest == nil {
		s.CompactAfterIngest = new(true)
	}
}

// validate reports the storage section's invalid values to bad
// ([Config.Validate]).
func (s *StorageConfig) validate(bad func(key, format string, args ...any)) {
	if s.Home == "" {
		bad("storage.home", "must be set")
	}
	switch s.Backend {
	case BackendEmbedded:
	case BackendPostgres:
		if s.Postgres.DSN == "" {
			bad("storage.postgres.dsn", "is empty; the postgres backend needs a database to connect to")
		}
	default:
		bad("storage.backend", "%q is not embedded or postgres", s.Backend)
	}
	if s.Postgres.MaxConns < 0 || s.Postgres.TxRetries < 0 {
		bad("storage.postgres", "max_conns and tx_retries must not be negative")
	}
	if s.CacheTTLHours < 0 {
		bad("storage.cache_ttl_hours", "must not be negative")
	}
	if s.CacheMaxMB < 0 {
		bad("storage.cache_max_mb", "must not be negative")
	}
	if s.LockWait < 0 || s.LockWait > 24*time.Hour {
		bad("storage.lock_wait", "%s is not between 0 and 24h", s.LockWait)
	}
	if s.VectorCacheMB < -1 || s.VectorCacheMB > 1<<20 {
		bad("storage.vector_cache_mb", "%d is not -1 (no cache) or between 0 and 1048576", s.VectorCacheMB)
	}
}
