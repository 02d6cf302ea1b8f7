package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// config is the command line.
type config struct {
	baseURL, token, model, session string
	stream, demo                   bool
	message                        string
}

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.baseURL, "base-url", envOr("HUIMEM_PROXY_URL", "http://127.0.0.1:7878/v1"), "the memory proxy, up to /v1 (env HUIMEM_PROXY_URL)")
	fs.StringVar(&c.token, "token", envOr("HUIMEM_SERVER_TOKEN", "none"), "HuiMemory bearer token (env HUIMEM_SERVER_TOKEN)")
	fs.StringVar(&c.model, "model", envOr("OPENAI_MODEL", "gpt-4o-mini"), "model name, passed to the upstream as it is")
	fs.StringVar(&c.session, "session", "", "session id (sent as X-Huimem-Session)")
	fs.BoolVar(&c.stream, "stream", false, "stream the answer")
	fs.BoolVar(&c.demo, "demo", false, "run three sessions: the third asks about the first")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.message = strings.Join(fs.Args(), " ")
	switch {
	case c.demo && c.message != "":
		return c, errors.New("-demo takes no message")
	case !c.demo && (c.session == "" || strings.TrimSpace(c.message) == ""):
		return c, errors.New("usage: proxy -session ID [-stream] MESSAGE, or proxy -demo")
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parse(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "proxy:", err)
		}
		return 2
	}
	// An ordinary OpenAI client: only the base URL and the key differ.
	client := openai.NewClient(option.WithBaseURL(c.baseURL), option.WithAPIKey(c.token))
	if !c.demo {
		if err := ask(ctx, client, c, c.session, c.message, stdout); err != nil {
			fmt.Fprintln(stderr, "proxy:", err)
			return 1
		}
		return 0
	}
	for _, step := range demo {
		fmt.Fprintf(stdout, "[%s] user: %s\n[%s] assistant: ", step.session, step.message, step.session)
		c.stream = step.stream
		if err := ask(ctx, client, c, step.session, step.message, stdout); err != nil {
			fmt.Fprintln(stderr, "\nproxy:", err)
			return 1
		}
	}
	return 0
}

// demo is three sessions; the third needs what the first said.
var demo = []struct {
	session, message string
	stream           bool
}{
	{"s1-moving", "I just moved to Lisbon and I'm allergic to peanuts, so keep that in mind for recipes.", false},
	{"s2-work", "Our deployment moved to Friday because the staging cluster ran out of GPU memory.", false},
	{"s3-dinner", "Any ideas for dinner recipes? Remember what I'm allergic to.", true},
}

// ask sends one user message and prints the answer. The request carries
// only the new message: HuiMemory keeps the history.
func ask(ctx context.Context, client openai.Client, c config, session, message string, w io.Writer) error {
	params := openai.ChatCompletionNewParams{
		Model:    c.model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(message)},
	}
	sess := option.WithHeader("X-Huimem-Session", session)
	if !c.stream {
		resp, err := client.Chat.Completions.New(ctx, params, sess)
		if err != nil {
			return fmt.Errorf("chat completion: %w", describe(err))
		}
		if len(resp.Choices) == 0 {
			return errors.New("chat completion: the response has no choices")
		}
		fmt.Fprintln(w, resp.Choices[0].Message.Content)
		return nil
	}
	stream := client.Chat.Completions.NewStreaming(ctx, params, sess)
	defer stream.Close()
	for stream.Next() {
		for _, ch := range stream.Current().Choices {
			fmt.Fprint(w, ch.Delta.Content)
		}
	}
	if err := stream.Err(); err != nil {
		return fmt.Errorf("streaming: %w", describe(err))
	}
	fmt.Fprintln(w)
	return nil
}

// describe adds the proxy's error code and message to an API error.
func describe(err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return fmt.Errorf("%d %s: %s", apiErr.StatusCode, apiErr.Code, apiErr.Message)
	}
	return err
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
