package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core/tools"
)

// toolsCmd prints the tool schemas or the memory-rules prompt. It needs no
// home and never opens the engine.
func (a *App) toolsCmd() *cobra.Command {
	var format, lang string
	var prompt, remember, namespaceArg, all bool
	cmd := &cobra.Command{
		Use:   "tools [--format openai|anthropic|mcp] [--remember | --all] | tools --prompt [--lang en|zh]",
		Short: "Print the tool schemas (recall_memory, recall_by_id, ...), or the memory-rules system prompt",
		Long: `Print the tool schemas an LLM needs to use HuiMemory, as JSON, in the
OpenAI function-calling form (default), the Anthropic Messages form or the
MCP tools/list form. Paste them into your agent's tool list and run each
call through the dispatcher (core/tools), the HTTP API or the MCP server.
By default they are recall_memory and recall_by_id; --remember adds
remember, and --all every tool "huimem mcp" serves: remember,
list_sessions, memory_stats, resolve_time, export_session and
forget_memory.

With --prompt, print instead the memory-rules system prompt (when to call
which tool, how to cite anchors) in English or Chinese.

Neither needs a home: nothing is opened or written.`,
		Example: `  huimem tools
  huimem tools --format anthropic
  huimem tools --prompt --lang zh`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			if prompt {
				if f.Changed("format") || f.Changed("remember") || f.Changed("namespace-arg") || f.Changed("all") {
					return Usagef("tools: --prompt prints the prompt, not schemas: drop --format, --remember, --all and --namespace-arg")
				}
				p, err := tools.Prompt(lang)
				if err != nil || lang == "" {
					return Usagef("tools: unknown --lang %q (want en or zh)", lang)
				}
				_, err = fmt.Fprint(a.Stdout, strings.TrimRight(p, "\n")+"\n")
				return err
			}
			if f.Changed("lang") {
				return Usagef("tools: --lang goes with --prompt")
			}
			if !slices.Contains(tools.Formats, tools.Format(format)) {
				return Usagef("tools: unknown --format %q (want openai, anthropic or mcp)", format)
			}
			data, err := tools.SchemasJSON(tools.Definitions(tools.Options{Remember: remember || all, Manage: all, Forget: all, AllowNamespace: namespaceArg}), tools.Format(format))
			if err != nil {
				return err
			}
			_, err = a.Stdout.Write(append(data, '\n'))
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "format", string(tools.FormatOpenAI), "schema form: openai, anthropic or mcp")
	fl.BoolVar(&remember, "remember", false, "include the remember tool (store a message), as the MCP server offers it")
	fl.BoolVar(&all, "all", false, "include every tool the MCP server offers")
	fl.BoolVar(&namespaceArg, "namespace-arg", false, "give the tools a namespace argument, for hosts that let the LLM choose one")
	fl.BoolVar(&prompt, "prompt", false, "print the memory-rules system prompt instead of the schemas")
	fl.StringVar(&lang, "lang", "en", "language of --prompt: en or zh")
	return cmd
}
