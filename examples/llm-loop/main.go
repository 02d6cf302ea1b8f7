package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/plugins/host"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// config is the command line.
type config struct {
	baseURL, model, apiKeyEnv string
	home, namespace, lang     string
	ingest                    string
	maxRounds                 int
	save, verbose             bool
	question                  string
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("llm-loop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.baseURL, "base-url", envOr("OPENAI_BASE_URL", "https://api.openai.com/v1"), "OpenAI-compatible API base URL, up to /v1 (env OPENAI_BASE_URL)")
	fs.StringVar(&c.model, "model", envOr("LLM_MODEL", "gpt-4o-mini"), "model name (env LLM_MODEL)")
	fs.StringVar(&c.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "name of the environment variable that holds the API key (may be unset for local servers)")
	fs.StringVar(&c.home, "home", envOr("HUIMEM_STORAGE_HOME", core.DefaultHome()), "HuiMemory home (env HUIMEM_STORAGE_HOME)")
	fs.StringVar(&c.namespace, "namespace", "", "memory namespace to read and write (default: the default namespace)")
	fs.StringVar(&c.lang, "lang", "en", "language of the memory-rules system prompt: en or zh")
	fs.StringVar(&c.ingest, "ingest", "", "a JSONL conversation to ingest before chatting")
	fs.IntVar(&c.maxRounds, "max-rounds", 6, "most model calls per question (tool rounds included)")
	fs.BoolVar(&c.save, "save", true, "store each question and answer in memory, so later chats can recall them")
	fs.BoolVar(&c.verbose, "v", false, "log each tool call on stderr")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: llm-loop [flags] [question]\n\nWith a question, answer it and exit; without, chat line by line on stdin.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.question = strings.TrimSpace(strings.Join(fs.Args(), " "))
	if c.maxRounds < 1 {
		return c, fmt.Errorf("-max-rounds %d: want at least 1", c.maxRounds)
	}
	if _, err := tools.Prompt(c.lang); err != nil || c.lang == "" {
		return c, fmt.Errorf("-lang %q: want en or zh", c.lang)
	}
	return c, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// run is the whole program; it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		fmt.Fprintln(stderr, "llm-loop:", err)
		return 2
	}
	if err := chat(ctx, c, stdin, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "llm-loop:", strings.Join(strings.Fields(err.Error()), " "))
		return 1
	}
	return 0
}

func chat(ctx context.Context, c config, stdin io.Reader, stdout, stderr io.Writer) error {
	mem, err := host.Open(ctx, core.Config{Storage: core.StorageConfig{Home: c.home}}, engine.Options{}, host.Options{})
	if err != nil {
		return fmt.Errorf("opening memory: %w", err)
	}
	defer mem.Close()
	if c.ingest != "" {
		if _, err := mem.IngestFile(ctx, c.ingest, engine.FileOptions{Namespace: c.namespace}); err != nil {
			return fmt.Errorf("ingesting: %w", err)
		}
	}
	a, err := newAgent(c, mem, stderr)
	if err != nil {
		return err
	}
	if c.question != "" {
		return a.answer(ctx, c.question, stdout)
	}
	in := bufio.NewScanner(stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	for in.Scan() {
		if q := strings.TrimSpace(in.Text()); q != "" {
			if err := a.answer(ctx, q, stdout); err != nil {
				return err
			}
		}
	}
	return in.Err()
}

// agent is one conversation with the model, with HuiMemory as its tools.
type agent struct {
	c       config
	client  openai.Client
	mem     *engine.Engine
	disp    *tools.Dispatcher
	tools   []openai.ChatCompletionToolUnionParam
	msgs    []openai.ChatCompletionMessageParamUnion
	session string
	log     io.Writer
}

func newAgent(c config, mem *engine.Engine, log io.Writer) (*agent, error) {
	opts := []option.RequestOption{option.WithBaseURL(c.baseURL)}
	if key := os.Getenv(c.apiKeyEnv); key != "" {
		opts = append(opts, option.WithAPIKey(key))
	} else {
		opts = append(opts, option.WithAPIKey("none")) // local servers need no key
	}
	disp := tools.New(mem, tools.Options{Namespace: c.namespace})
	// The schemas, in the OpenAI form, go to the model as they are.
	schemas, err := tools.SchemasJSON(disp.Tools(), tools.FormatOpenAI)
	if err != nil {
		return nil, err
	}
	var toolParams []openai.ChatCompletionToolUnionParam
	if err := json.Unmarshal(schemas, &toolParams); err != nil {
		return nil, fmt.Errorf("tool schemas: %w", err)
	}
	prompt, err := tools.Prompt(c.lang)
	if err != nil {
		return nil, err
	}
	return &agent{
		c: c, client: openai.NewClient(opts...), mem: mem, disp: disp, tools: toolParams,
		msgs:    []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(prompt)},
		session: "llm-loop-" + time.Now().Format("2006-01-02"),
		log:     log,
	}, nil
}

// answer runs one question: it calls the model, runs the tool calls it
// asks for through the dispatcher, and calls it again with their results,
// until the model answers or maxRounds calls were made.
func (a *agent) answer(ctx context.Context, question string, w io.Writer) error {
	asked := time.Now()
	a.msgs = append(a.msgs, openai.UserMessage(question))
	for round := 1; round <= a.c.maxRounds; round++ {
		params := openai.ChatCompletionNewParams{Model: a.c.model, Messages: a.msgs, Tools: a.tools}
		if round == a.c.maxRounds {
			params.ToolChoice.OfAuto = openai.String("none") // last round: answer with what you have
		}
		resp, err := a.client.Chat.Completions.New(ctx, params)
		if err != nil {
			return fmt.Errorf("chat completion: %w", err)
		}
		if len(resp.Choices) == 0 {
			return errors.New("chat completion: the response has no choices")
		}
		msg := resp.Choices[0].Message
		a.msgs = append(a.msgs, msg.ToParam())
		if len(msg.ToolCalls) == 0 {
			fmt.Fprintln(w, msg.Content)
			return a.remember(ctx, question, asked, msg.Content)
		}
		for _, call := range msg.ToolCalls {
			text := "error: only function tools are available"
			if call.Type == "function" || call.Type == "" {
				// One line per tool call: the dispatcher returns the text
				// for the model, errors included.
				text, _ = a.disp.Dispatch(ctx, call.Function.Name, call.Function.Arguments)
			}
			if a.c.verbose {
				fmt.Fprintf(a.log, "tool %s %s -> %d bytes\n", call.Function.Name, call.Function.Arguments, len(text))
			}
			a.msgs = append(a.msgs, openai.ToolMessage(text, call.ID))
		}
	}
	return fmt.Errorf("no answer after %d model calls", a.c.maxRounds)
}

// remember stores the question and the answer, verbatim.
func (a *agent) remember(ctx context.Context, question string, asked time.Time, answer string) error {
	if !a.c.save || strings.TrimSpace(answer) == "" {
		return nil
	}
	_, err := a.mem.Ingest(ctx, []core.Message{
		{Namespace: a.c.namespace, Session: a.session, Time: asked, Role: core.RoleUser, Text: question},
		{Namespace: a.c.namespace, Session: a.session, Time: time.Now(), Role: core.RoleAssistant, Text: answer},
	})
	if err != nil {
		return fmt.Errorf("saving the exchange: %w", err)
	}
	return nil
}
