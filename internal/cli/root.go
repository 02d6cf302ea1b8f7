package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/huimemory/huimemory/configs"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/plugins/host"
)

// Exit codes.
const (
	exitError    = 1 // something failed
	exitUsage    = 2 // bad flags, arguments, input or config
	exitNotFound = 3 // no such chunk
	exitLocked   = 4 // the home is in use by another process
)

// app is what every subcommand shares.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	home, config   string
	// tz is the --tz flag of the commands that take times; it overrides
	// time.zone.
	tz string
	// command is the running subcommand's path below the root, such as
	// "recall" or "archive seal", which decides whether [app.open] may
	// create a home.
	command string
	// embedder is which embedder the last loaded configuration runs and
	// why (the automatic choice is hash);
	// `huimem stats` and `huimem config` show it.
	embedder host.EmbedderChoice
}

// homeCreators are the commands that may create a home that does not
// exist yet, and whether they say so on stderr. Every other command
// refuses a missing home, so that a misspelt --home is an error instead
// of a new, empty memory.
var homeCreators = map[string]bool{
	"init":   false, // creating the home is what it is for
	"ingest": true,
	"add":    true,
	"demo":   true,
	// Benchmarks fill a scratch home of their own.
	"bench locomo": false,
	"bench beam":   false,
	"bench zh":     false,
	"bench dev":    false,
}

// usageError marks a bad command line.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "huimem",
		Short: "HuiMemory: long-term memory for LLM agents",
		Long: `HuiMemory keeps every conversation turn verbatim and finds it again by
keyword, meaning and time. Each turn chunk has a short id with prev/next
links, so an LLM can walk a conversation with recall_by_id.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		a.command = strings.TrimPrefix(strings.TrimPrefix(cmd.CommandPath(), root.Name()), " ")
		return nil
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.home, "home", "", "data directory (default $HUIMEM_STORAGE_HOME, storage.home, or ~/.huimem)")
	pf.StringVar(&a.config, "config", "", "config file to merge over the defaults (default <home>/config.yaml if it exists)")
	root.AddCommand(
		a.initCmd(), a.ingestCmd(), a.addCmd(), a.recallCmd(), a.getCmd(),
		a.statsCmd(), a.reindexCmd(), a.demoCmd(), a.configCmd(), a.benchWithConcurrent(), a.timeCmd(),
		a.pluginCmd(), a.pluginsCmd(),
		a.archiveCmd(),
		a.serveCmd(),
		a.toolsCmd(),
		a.mcpCmd(),
		a.modelsCmd(),
		a.forgetCmd(),
		a.exportCmd(),
		a.migrateCmd(),
	)
	return root
}

// benchWithConcurrent is the bench command with `bench concurrent`
// (bench_concurrent.go) added.
func (a *app) benchWithConcurrent() *cobra.Command {
	b := a.benchCmd()
	b.AddCommand(a.benchConcurrentCmd())
	return b
}

// loadConfig builds the configuration: embedded defaults, then the config
// file, then HUIMEM_* environment variables, then flags.
func (a *app) loadConfig() (core.Config, error) {
	if err := checkEnv(os.Environ()); err != nil {
		return core.Config{}, usageError{err}
	}
	v := viper.New()
	v.SetConfigType("yaml")
	// The defaults as a map generated from config.yaml: parsing the YAML
	// took about 0.8 ms of every command (issue 15).
	if err := v.MergeConfigMap(configs.DefaultMap()); err != nil {
		return core.Config{}, fmt.Errorf("reading embedded defaults: %w", err)
	}
	v.SetEnvPrefix("HUIMEM")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	home := a.home
	if home == "" {
		home = v.GetString("storage.home")
	}
	file := a.config
	if file == "" && home != "" {
		if p := filepath.Join(home, "config.yaml"); fileExists(p) {
			file = p
		}
	}
	if file == "" {
		if p := filepath.Join(core.DefaultHome(), "config.yaml"); home == "" && fileExists(p) {
			file = p
		}
	}
	// user holds what the config file itself says, to tell its settings
	// from the embedded defaults.
	user := viper.New()
	user.SetConfigType("yaml")
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return core.Config{}, usageError{fmt.Errorf("config: %w", err)}
		}
		if data, err = translateGuideKeys(data, func(format string, args ...any) {
			fmt.Fprintf(a.stderr, "huimem: "+format+" (%s)\n", append(args, file)...)
		}); err != nil {
			return core.Config{}, usageError{fmt.Errorf("%s: %v", file, err)}
		}
		if err := v.MergeConfig(bytes.NewReader(data)); err != nil {
			return core.Config{}, usageError{fmt.Errorf("config %s: %v", file, err)}
		}
		user.ReadConfig(bytes.NewReader(data))
	}
	if a.home != "" {
		v.Set("storage.home", a.home)
	}
	var cfg core.Config
	err := v.UnmarshalExact(&cfg, viper.DecodeHook(mapstructure.ComposeDecodeHookFunc(
		mapstructure.StringToTimeDurationHookFunc(),
		mapstructure.StringToSliceHookFunc(","),
	)))
	if err != nil {
		return core.Config{}, usageError{fmt.Errorf("config %s: %v", orDefault(file), err)}
	}
	// SetDefaults gives both weights their defaults when both are 0, as
	// in a Config built in Go; here the embedded defaults set them, so
	// both at 0 was asked for, and is impossible.
	if cfg.Retriever.VectorWeight == 0 && cfg.Retriever.BM25Weight == 0 {
		return core.Config{}, usageError{&core.ConfigError{Key: "retriever.vector_weight",
			Msg: fmt.Sprintf("vector_weight and bm25_weight are both 0 (%s); at least one must be positive", orDefault(file))}}
	}
	if a.tz != "" {
		if _, err := time.LoadLocation(a.tz); err != nil {
			return core.Config{}, usagef("--tz %q: not an IANA time zone name such as Asia/Shanghai or UTC", a.tz)
		}
		cfg.Time.Zone = a.tz
	}
	// A plugin given only by its command is named after its program, not
	// after the default built-in ("hash", "turn") it replaces.
	for _, p := range []struct {
		key  string
		spec *core.PluginSpec
	}{{"embedding", &cfg.Embedding.PluginSpec}, {"chunker", &cfg.Chunker}} {
		named := user.IsSet(p.key+".name") || os.Getenv("HUIMEM_"+strings.ToUpper(p.key)+"_NAME") != ""
		if p.spec.Command != "" && !named {
			p.spec.Name = filepath.Base(p.spec.Command)
		}
	}
	// An embedder that is not named is chosen (hash; see
	// host.ChooseEmbedder).
	a.embedder = host.ChooseEmbedder(&cfg.Embedding)
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return core.Config{}, usageError{err}
	}
	return cfg, nil
}

// loadBenchConfig is loadConfig for the performance benchmarks: an
// embedder chosen automatically becomes hash, so that their figures do
// not depend on which models a machine has installed (name one with
// embedding.name or HUIMEM_EMBEDDING_NAME to measure it).
func (a *app) loadBenchConfig() (core.Config, error) {
	cfg, err := a.loadConfig()
	if err == nil && a.embedder.Auto && cfg.Embedding.Name != "hash" {
		cfg.Embedding.Name, cfg.Embedding.Dim, cfg.Embedding.ModelDir = "hash", 0, ""
		cfg.SetDefaults()
		a.embedder = host.EmbedderChoice{Name: "hash", Auto: true, Reason: "benchmarks use hash unless an embedder is named"}
	}
	return cfg, err
}

func orDefault(file string) string {
	if file == "" {
		return "(defaults and environment)"
	}
	return file
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// open loads the configuration and opens the engine. Only the commands in
// [homeCreators] may open a home whose folder does not exist yet; the
// others fail with a usage error that says how to make one.
func (a *app) open(ctx context.Context, opts engine.Options) (*engine.Engine, core.Config, error) {
	return a.openWith(ctx, opts, nil)
}

// openWith is open with a last say on the configuration.
func (a *app) openWith(ctx context.Context, opts engine.Options, adjust func(*core.Config)) (*engine.Engine, core.Config, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, cfg, err
	}
	if adjust != nil {
		adjust(&cfg)
	}
	home, err := filepath.Abs(cfg.Storage.Home)
	if err != nil {
		return nil, cfg, fmt.Errorf("home %q: %w", cfg.Storage.Home, err)
	}
	// On the postgres backend the memory is in the database; the home
	// folder only caches, and is made when needed.
	isNew := !homeExists(home) && cfg.Storage.Backend != core.BackendPostgres
	notice, creates := homeCreators[a.command]
	if isNew && !creates {
		return nil, cfg, usagef("no HuiMemory home at %s (run \"huimem init\" or pass --home)", home)
	}
	a.shareHome(&opts, cfg)
	e, err := a.openEngine(ctx, cfg, opts)
	if errors.Is(err, core.ErrEmbedderChanged) && a.embedder.Auto {
		e, cfg, err = a.openAutoFallback(ctx, cfg, opts, err)
	}
	if err == nil && isNew && notice {
		fmt.Fprintf(a.stderr, "huimem: created a new HuiMemory home at %s\n", e.Home())
	}
	return e, cfg, err
}

// shareHome opens the home with shared access (issue 16; see
// docs/concurrency.md): any number of huimem processes read it at once,
// and a write locks it only while it commits, waiting at most
// storage.lock_wait for another writer. With HUIMEM_TEST_LOCK_STATS set,
// each wait is printed on stderr (`huimem bench concurrent` reads them).
func (a *app) shareHome(opts *engine.Options, cfg core.Config) {
	opts.Access = engine.AccessShared
	if opts.LockWait == 0 {
		opts.LockWait = cfg.Storage.LockWait
	}
	if opts.Owner == "" {
		opts.Owner = strings.TrimSpace("huimem " + a.command)
	}
	if os.Getenv("HUIMEM_TEST_LOCK_STATS") != "" && opts.OnLockWait == nil {
		opts.OnLockWait = func(kind string, d time.Duration) {
			fmt.Fprintf(a.stderr, "huimem: lock-wait %s %d\n", kind, d.Microseconds())
		}
	}
}

// homeExists reports whether the home folder dir exists. An existing
// folder without a store (an empty one, or one holding only a
// config.yaml) is opened as a home and gets its store then; a folder that
// does not exist is most often a misspelt --home.
func homeExists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

func (a *app) logf(format string, args ...any) {
	fmt.Fprintf(a.stderr, format+"\n", args...)
}

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	var ue usageError
	switch {
	case errors.As(err, &ue), errors.Is(err, core.ErrInvalid):
		return exitUsage
	case errors.Is(err, core.ErrNotFound):
		return exitNotFound
	case errors.Is(err, core.ErrLocked):
		return exitLocked
	}
	return exitError
}

// oneLine folds an error message onto one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// Argument checks that report a bad command line as a usage error.
func wrapArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError{fmt.Errorf("%s: %v", cmd.Name(), err)}
		}
		return nil
	}
}

var (
	noArgs       = wrapArgs(cobra.NoArgs)
	exactArgs    = func(n int) cobra.PositionalArgs { return wrapArgs(cobra.ExactArgs(n)) }
	minimumNArgs = func(n int) cobra.PositionalArgs { return wrapArgs(cobra.MinimumNArgs(n)) }
)

// stderrIsTerminal reports whether stderr is a terminal, for progress lines.
func (a *app) stderrIsTerminal() bool {
	f, ok := a.stderr.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
