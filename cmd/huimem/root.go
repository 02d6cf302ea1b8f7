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

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/huimemory/huimemory/configs"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
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
	pf := root.PersistentFlags()
	pf.StringVar(&a.home, "home", "", "data directory (default $HUIMEM_STORAGE_HOME, storage.home, or ~/.huimem)")
	pf.StringVar(&a.config, "config", "", "config file to merge over the defaults (default <home>/config.yaml if it exists)")
	root.AddCommand(
		a.initCmd(), a.ingestCmd(), a.addCmd(), a.recallCmd(), a.getCmd(),
		a.statsCmd(), a.reindexCmd(), a.demoCmd(), a.configCmd(), a.benchCmd(), a.timeCmd(),
		a.pluginCmd(), a.pluginsCmd(),
		a.archiveCmd(),
	)
	return root
}

// loadConfig builds the configuration: embedded defaults, then the config
// file, then HUIMEM_* environment variables, then flags.
func (a *app) loadConfig() (core.Config, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(configs.Default)); err != nil {
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
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return core.Config{}, usageError{err}
	}
	return cfg, nil
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

// open loads the configuration and opens the engine.
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
	opts.Logf = a.logf
	if err := a.usePlugins(ctx, cfg, &opts); err != nil {
		return nil, cfg, err
	}
	e, err := engine.Open(ctx, cfg, opts)
	return e, cfg, err
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
