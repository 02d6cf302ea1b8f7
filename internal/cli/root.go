package cli

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

// App is what every subcommand of a [Program] shares: the standard
// streams and the global flags.
type App struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Home and Config are the --home and --config flags.
	Home, Config string
	// program is the running program's name, such as "huimem".
	program string
	// creators are the commands of the program that may create a home
	// (see [Program.Creators]).
	creators map[string]bool
	// tz is the --tz flag of the commands that take times; it overrides
	// time.zone.
	tz string
	// command is the running subcommand's path below the root, such as
	// "recall" or "archive seal", which decides whether [App.open] may
	// create a home.
	command string
	// embedder is which embedder the last loaded configuration runs and
	// why (the automatic choice is hash);
	// `huimem stats` and `huimem config` show it.
	embedder host.EmbedderChoice
}

// Program is a command-line program built on the shared [App]: huimem
// itself ([Huimem]) or the benchmark tool, huimem-bench.
type Program struct {
	// Name, Short and Long describe the root command.
	Name, Short, Long string
	// Commands returns the program's subcommands. Every program also has
	// the hidden plugin command, which serves the built-in plugins when
	// plugins.subprocess is set.
	Commands func(a *App) []*cobra.Command
	// Creators are the commands (their paths below the root, such as
	// "ingest") that may create a home that does not exist yet, and
	// whether they say so on stderr. Every other command refuses a missing
	// home, so that a misspelt --home is an error instead of a new, empty
	// memory.
	Creators map[string]bool
}

// Huimem is the huimem command.
var Huimem = Program{
	Name:  "huimem",
	Short: "HuiMemory: long-term memory for LLM agents",
	Long: `HuiMemory keeps every conversation turn verbatim and finds it again by
keyword, meaning and time. Each turn chunk has a short id with prev/next
links, so an LLM can walk a conversation with recall_by_id.`,
	Commands: func(a *App) []*cobra.Command {
		return []*cobra.Command{
			a.initCmd(), a.ingestCmd(), a.addCmd(), a.recallCmd(), a.getCmd(),
			a.statsCmd(), a.reindexCmd(), a.demoCmd(), a.configCmd(), a.timeCmd(),
			a.pluginsCmd(),
			a.archiveCmd(),
			a.serveCmd(),
			a.toolsCmd(),
			a.mcpCmd(),
			a.modelsCmd(),
			a.forgetCmd(),
			a.exportCmd(),
			a.migrateCmd(),
			a.hookCmd(),
			a.hooksCmd(),
		}
	},
	Creators: map[string]bool{
		"init":   false, // creating the home is what it is for
		"ingest": true,
		"add":    true,
		"demo":   true,
		// A coding agent's first capture makes the home; its MCP server
		// may start before that.
		"hook":      false,
		"hooks mcp": false,
	},
}

// UsageError marks a bad command line, input or configuration: the
// program exits with code 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usagef returns a [UsageError] with a formatted message.
func Usagef(format string, args ...any) error { return UsageError{fmt.Errorf(format, args...)} }

func (p Program) root(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	a := &App{Stdin: stdin, Stdout: stdout, Stderr: stderr, program: p.Name, creators: p.Creators}
	root := &cobra.Command{
		Use:           p.Name,
		Short:         p.Short,
		Long:          p.Long,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return UsageError{err} })
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		a.command = strings.TrimPrefix(strings.TrimPrefix(cmd.CommandPath(), root.Name()), " ")
		return nil
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.Home, "home", "", "data directory (default $HUIMEM_STORAGE_HOME, storage.home, or ~/.huimem)")
	pf.StringVar(&a.Config, "config", "", "config file to merge over the defaults (default <home>/config.yaml if it exists)")
	root.AddCommand(p.Commands(a)...)
	root.AddCommand(a.pluginCmd())
	return root
}

// loadConfig builds the configuration: embedded defaults, then the config
// file, then HUIMEM_* environment variables, then flags.
func (a *App) loadConfig() (core.Config, error) {
	if err := checkEnv(os.Environ()); err != nil {
		return core.Config{}, UsageError{err}
	}
	v := viper.New()
	v.SetConfigType("yaml")
	// The defaults as a map generated from config.yaml: parsing the YAML
	// took about 0.8 ms of every command.
	if err := v.MergeConfigMap(configs.DefaultMap()); err != nil {
		return core.Config{}, fmt.Errorf("reading embedded defaults: %w", err)
	}
	v.SetEnvPrefix("HUIMEM")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	home := a.Home
	if home == "" {
		home = v.GetString("storage.home")
	}
	file := a.Config
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
			return core.Config{}, UsageError{fmt.Errorf("config: %w", err)}
		}
		if data, err = translateGuideKeys(data, func(format string, args ...any) {
			fmt.Fprintf(a.Stderr, "huimem: "+format+" (%s)\n", append(args, file)...)
		}); err != nil {
			return core.Config{}, UsageError{fmt.Errorf("%s: %v", file, err)}
		}
		if err := v.MergeConfig(bytes.NewReader(data)); err != nil {
			return core.Config{}, UsageError{fmt.Errorf("config %s: %v", file, err)}
		}
		user.ReadConfig(bytes.NewReader(data))
		if user.IsSet("plugins.in_process") {
			return core.Config{}, Usagef("config %s: plugins.in_process is no longer a setting; delete it (built-in plugins run in process unless plugins.subprocess is true)", file)
		}
	}
	if a.Home != "" {
		v.Set("storage.home", a.Home)
	}
	var cfg core.Config
	err := v.UnmarshalExact(&cfg, viper.DecodeHook(mapstructure.ComposeDecodeHookFunc(
		mapstructure.StringToTimeDurationHookFunc(),
		mapstructure.StringToSliceHookFunc(","),
	)))
	if err != nil {
		return core.Config{}, UsageError{fmt.Errorf("config %s: %v", orDefault(file), err)}
	}
	// SetDefaults gives both weights their defaults when both are 0, as
	// in a Config built in Go; here the embedded defaults set them, so
	// both at 0 was asked for, and is impossible.
	if cfg.Retriever.VectorWeight == 0 && cfg.Retriever.BM25Weight == 0 {
		return core.Config{}, UsageError{&core.ConfigError{Key: "retriever.vector_weight",
			Msg: fmt.Sprintf("vector_weight and bm25_weight are both 0 (%s); at least one must be positive", orDefault(file))}}
	}
	if a.tz != "" {
		if _, err := time.LoadLocation(a.tz); err != nil {
			return core.Config{}, Usagef("--tz %q: not an IANA time zone name such as Asia/Shanghai or UTC", a.tz)
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
		return core.Config{}, UsageError{err}
	}
	return cfg, nil
}

// LoadBenchConfig is loadConfig for the performance benchmarks: an
// embedder chosen automatically becomes hash, so that their figures do
// not depend on which models a machine has installed (name one with
// embedding.name or HUIMEM_EMBEDDING_NAME to measure it).
func (a *App) LoadBenchConfig() (core.Config, error) {
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
// [Program.Creators] may open a home whose folder does not exist yet; the
// others fail with a usage error that says how to make one.
func (a *App) open(ctx context.Context, opts engine.Options) (*engine.Engine, core.Config, error) {
	return a.openWith(ctx, opts, nil)
}

// openWith is open with a last say on the configuration.
func (a *App) openWith(ctx context.Context, opts engine.Options, adjust func(*core.Config)) (*engine.Engine, core.Config, error) {
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
	notice, creates := a.creators[a.command]
	if isNew && !creates {
		return nil, cfg, Usagef("no HuiMemory home at %s (run \"huimem init\" or pass --home)", home)
	}
	a.shareHome(&opts, cfg)
	e, err := a.openEngine(ctx, cfg, opts)
	if errors.Is(err, core.ErrEmbedderChanged) && a.embedder.Auto {
		e, cfg, err = a.openAutoFallback(ctx, cfg, opts, err)
	}
	if err == nil && isNew && notice {
		fmt.Fprintf(a.Stderr, "huimem: created a new HuiMemory home at %s\n", e.Home())
	}
	return e, cfg, err
}

// shareHome opens the home with shared access (see
// docs/concurrency.md): any number of huimem processes read it at once,
// and a write locks it only while it commits, waiting at most
// storage.lock_wait for another writer. With HUIMEM_TEST_LOCK_STATS set,
// each wait is printed on stderr (`huimem-bench concurrent` reads them).
func (a *App) shareHome(opts *engine.Options, cfg core.Config) {
	opts.Access = engine.AccessShared
	if opts.LockWait == 0 {
		opts.LockWait = cfg.Storage.LockWait
	}
	if opts.Owner == "" {
		opts.Owner = strings.TrimSpace(a.program + " " + a.command)
	}
	if os.Getenv("HUIMEM_TEST_LOCK_STATS") != "" && opts.OnLockWait == nil {
		opts.OnLockWait = func(kind string, d time.Duration) {
			fmt.Fprintf(a.Stderr, "huimem: lock-wait %s %d\n", kind, d.Microseconds())
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

// Open loads the configuration and opens the engine as every command
// does (see open).
func (a *App) Open(ctx context.Context, opts engine.Options) (*engine.Engine, core.Config, error) {
	return a.open(ctx, opts)
}

// OpenEngine opens the engine for cfg with the plugins cfg names.
func (a *App) OpenEngine(ctx context.Context, cfg core.Config, opts engine.Options) (*engine.Engine, error) {
	return a.openEngine(ctx, cfg, opts)
}

// Logf prints one line on stderr.
func (a *App) Logf(format string, args ...any) { a.logf(format, args...) }

func (a *App) logf(format string, args ...any) {
	fmt.Fprintf(a.Stderr, format+"\n", args...)
}

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	var ue UsageError
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
			return UsageError{fmt.Errorf("%s: %v", cmd.Name(), err)}
		}
		return nil
	}
}

// NoArgs rejects positional arguments with a usage error.
var NoArgs = wrapArgs(cobra.NoArgs)

var (
	noArgs       = NoArgs
	exactArgs    = func(n int) cobra.PositionalArgs { return wrapArgs(cobra.ExactArgs(n)) }
	minimumNArgs = func(n int) cobra.PositionalArgs { return wrapArgs(cobra.MinimumNArgs(n)) }
)

// stderrIsTerminal reports whether stderr is a terminal, for progress lines.
func (a *App) stderrIsTerminal() bool {
	f, ok := a.Stderr.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
