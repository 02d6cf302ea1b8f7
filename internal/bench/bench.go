package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/bench/beam"
	"github.com/huimemory/huimemory/internal/bench/locomo"
	"github.com/huimemory/huimemory/internal/cli"
	"github.com/huimemory/huimemory/internal/render"
)

func (a *app) benchLocomoCmd() *cobra.Command {
	var data, ks, out, foreign string
	var asJSON, captions, noTime, keep, polluted bool
	var offTopic int
	cmd := &cobra.Command{
		Use:   "locomo --data PATH [--k 5,10] [--json] [--out FILE]",
		Short: "Evaluate evidence recall on LoCoMo with the configured chunker and embedder",
		Long: `Evaluate evidence recall on LoCoMo (snap-research/LoCoMo). Each conversation
is converted to generic JSONL and ingested into its own namespace of a
scratch home (or --home), and each question runs through batch recall.
Reports message-level recall@k overall and per category, session-level
recall@10, MRR and NDCG@10. --out writes every question's refs as JSON.
--polluted pastes a 1,600-character agent system prompt in front of every
question; --off-topic N also asks N generated questions about subjects the
conversation never mentions and reports how often recall returned nothing;
--foreign DIR does the same with another benchmark's real questions (a
BEAM folder), each asked of one conversation in turn.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if data == "" {
				return cli.Usagef("locomo: --data is required")
			}
			kList, err := parseKs("locomo", ks)
			if err != nil {
				return err
			}
			if offTopic < 0 || offTopic > 10000 {
				return cli.Usagef("locomo: --off-topic %d is not between 0 and 10000", offTopic)
			}
			samples, err := locomo.Load(data)
			if err != nil {
				return cli.UsageError{Err: err}
			}
			foreignQs, err := foreignQuestions(foreign)
			if err != nil {
				return err
			}
			work, err := os.MkdirTemp("", "huimem-locomo-")
			if err != nil {
				return err
			}
			if !keep {
				defer os.RemoveAll(work)
			}
			if a.Home == "" {
				a.Home = work + "/home"
			}
			e, cfg, err := a.Open(cmd.Context(), engine.Options{})
			if err != nil {
				return err
			}
			defer e.Close()
			opts := locomo.Options{Ks: kList, Captions: captions, NoTime: noTime, WorkDir: work, OffTopic: offTopic, Foreign: foreignQs}
			if polluted {
				opts.Prefix = locomo.SystemPrompt
			}
			rep, err := locomo.Run(cmd.Context(), e, samples, opts)
			if err != nil {
				return err
			}
			if out != "" {
				b, _ := json.MarshalIndent(rep.PerQuestion, "", "  ")
				if err := os.WriteFile(out, b, 0o644); err != nil {
					return err
				}
			}
			if asJSON {
				detail := rep.PerQuestion
				rep.PerQuestion = nil
				err := render.JSON(a.Stdout, rep)
				rep.PerQuestion = detail
				return err
			}
			w := a.Stdout
			fmt.Fprintf(w, "LoCoMo: %d conversations, %d questions, %d messages\n", rep.Samples, rep.Questions, rep.Messages)
			writeSetup(w, rep.EmbedderInfo, cfg)
			cats := make([]int, 0, len(rep.CategoryCount))
			for c := range rep.CategoryCount {
				cats = append(cats, c)
			}
			sort.Ints(cats)
			fmt.Fprintf(w, "%-10s %7s", "metric", "all")
			for _, c := range cats {
				fmt.Fprintf(w, " %7s", fmt.Sprintf("cat%d", c))
			}
			fmt.Fprintln(w)
			for _, k := range kList {
				fmt.Fprintf(w, "%-10s %7.3f", fmt.Sprintf("recall@%d", k), rep.Recall[k])
				for _, c := range cats {
					fmt.Fprintf(w, " %7.3f", rep.ByCategory[c][k])
				}
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%-10s %7s", "questions", "")
			for _, c := range cats {
				fmt.Fprintf(w, " %7d", rep.CategoryCount[c])
			}
			fmt.Fprintln(w)
			fmt.Fprintf(w, "session recall@10 %.3f, MRR %.3f, NDCG@10 %.3f\n", rep.SessionRecall, rep.MRR, rep.NDCG)
			if rep.OffTopic > 0 {
				fmt.Fprintf(w, "off-topic: %d questions, %.1f%% answered with nothing\n", rep.OffTopic, 100*rep.OffTopicEmpty)
			}
			if rep.Foreign > 0 {
				fmt.Fprintf(w, "foreign: %d questions of another benchmark, %.1f%% answered with nothing\n", rep.Foreign, 100*rep.ForeignEmpty)
			}
			writeTimes(w, rep.IngestSeconds, rep.RecallSeconds, rep.Questions, rep.Errors)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "", "LoCoMo JSON file, such as ../shared/bench/locomo/locomo-dev.json")
	f.StringVar(&ks, "k", "5,10", "recall cut-offs")
	f.StringVar(&out, "out", "", "write every question's refs and recall to this JSON file")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.BoolVar(&captions, "captions", true, "append image captions to the turns' text")
	f.BoolVar(&noTime, "no-time", false, "do not resolve time phrases in the questions")
	f.BoolVar(&keep, "keep", false, "keep the scratch home and JSONL files")
	f.BoolVar(&polluted, "polluted", false, "paste an agent system prompt in front of every question")
	f.IntVar(&offTopic, "off-topic", 0, "also ask N off-topic questions per conversation")
	f.StringVar(&foreign, "foreign", "", "also ask another benchmark's questions (a BEAM folder) as off-topic ones")
	return cmd
}

// parseKs parses a list of recall cut-offs such as "5,10".
func parseKs(name, ks string) ([]int, error) {
	var kList []int
	for _, f := range strings.Split(ks, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 || k > 100 {
			return nil, cli.Usagef("%s: --k %q: want numbers from 1 to 100, such as 5,10", name, ks)
		}
		kList = append(kList, k)
	}
	return kList, nil
}

func (a *app) benchBeamCmd() *cobra.Command {
	var data, ks, out, foreign string
	var asJSON, noTime, polluted bool
	var offTopic int
	cmd := &cobra.Command{
		Use:   "beam --data DIR [--k 5,10] [--json] [--out FILE]",
		Short: "Evaluate evidence recall on BEAM with the configured chunker and embedder",
		Long: `Evaluate message-level evidence recall on BEAM (long user-assistant chats).
DIR holds <N>.messages.jsonl and <N>.questions.jsonl per chat, such as
../shared/bench/beam/100K-dev. Each chat is ingested into its own namespace
of a scratch home (or --home), and each question with evidence runs through
batch recall with now set to the day after the chat's last message.
Reports recall@k overall and per category, MRR and NDCG@10. --polluted and
--off-topic N work as for bench locomo; --foreign FILE asks another
benchmark's real questions (a LoCoMo JSON file), each of one chat in turn,
and reports how often recall returned nothing.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if data == "" {
				return cli.Usagef("beam: --data is required")
			}
			kList, err := parseKs("beam", ks)
			if err != nil {
				return err
			}
			if offTopic < 0 || offTopic > 10000 {
				return cli.Usagef("beam: --off-topic %d is not between 0 and 10000", offTopic)
			}
			chats, err := beam.Load(data)
			if err != nil {
				return cli.UsageError{Err: err}
			}
			foreignQs, err := foreignQuestions(foreign)
			if err != nil {
				return err
			}
			work, err := os.MkdirTemp("", "huimem-beam-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(work)
			if a.Home == "" {
				a.Home = work + "/home"
			}
			e, cfg, err := a.Open(cmd.Context(), engine.Options{})
			if err != nil {
				return err
			}
			defer e.Close()
			opts := beam.Options{Ks: kList, NoTime: noTime, OffTopic: offTopic, Foreign: foreignQs}
			if polluted {
				opts.Prefix = locomo.SystemPrompt
			}
			rep, err := beam.Run(cmd.Context(), e, chats, opts)
			if err != nil {
				return err
			}
			if out != "" {
				b, _ := json.MarshalIndent(rep.PerQuestion, "", "  ")
				if err := os.WriteFile(out, b, 0o644); err != nil {
					return err
				}
			}
			if asJSON {
				detail := rep.PerQuestion
				rep.PerQuestion = nil
				err := render.JSON(a.Stdout, rep)
				rep.PerQuestion = detail
				return err
			}
			w := a.Stdout
			fmt.Fprintf(w, "BEAM: %d chats, %d questions with evidence, %d messages\n", rep.Chats, rep.Questions, rep.Messages)
			writeSetup(w, rep.EmbedderInfo, cfg)
			cats := make([]string, 0, len(rep.CategoryCount))
			for c := range rep.CategoryCount {
				cats = append(cats, c)
			}
			sort.Strings(cats)
			for _, k := range kList {
				fmt.Fprintf(w, "recall@%-3d %.3f\n", k, rep.Recall[k])
			}
			for _, c := range cats {
				fmt.Fprintf(w, "  %-26s %3d questions  recall@10 %.3f\n", c, rep.CategoryCount[c], rep.ByCategory[c][10])
			}
			fmt.Fprintf(w, "MRR %.3f, NDCG@10 %.3f\n", rep.MRR, rep.NDCG)
			if rep.OffTopic > 0 {
				fmt.Fprintf(w, "off-topic: %d questions, %.1f%% answered with nothing\n", rep.OffTopic, 100*rep.OffTopicEmpty)
			}
			if rep.Foreign > 0 {
				fmt.Fprintf(w, "foreign: %d questions of another benchmark, %.1f%% answered with nothing\n", rep.Foreign, 100*rep.ForeignEmpty)
			}
			writeTimes(w, rep.IngestSeconds, rep.RecallSeconds, rep.Questions, rep.Errors)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "", "BEAM folder, such as ../shared/bench/beam/100K-dev")
	f.StringVar(&ks, "k", "5,10", "recall cut-offs")
	f.StringVar(&out, "out", "", "write every question's refs and recall to this JSON file")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.BoolVar(&noTime, "no-time", false, "do not resolve time phrases in the questions")
	f.BoolVar(&polluted, "polluted", false, "paste an agent system prompt in front of every question")
	f.IntVar(&offTopic, "off-topic", 0, "also ask N off-topic questions per chat")
	f.StringVar(&foreign, "foreign", "", "also ask another benchmark's questions (a LoCoMo file) as off-topic ones")
	return cmd
}

// foreignQuestions reads the questions of the benchmark at path, for
// --foreign: a folder is BEAM's (every question of every chat), a file
// LoCoMo's. An empty path gives none.
func foreignQuestions(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, cli.Usagef("--foreign: %v", err)
	}
	var qs []string
	if st.IsDir() {
		chats, err := beam.Load(path)
		if err != nil {
			return nil, cli.UsageError{Err: fmt.Errorf("--foreign: %w", err)}
		}
		for _, c := range chats {
			for _, q := range c.Questions {
				qs = append(qs, q.Query)
			}
		}
		return qs, nil
	}
	samples, err := locomo.Load(path)
	if err != nil {
		return nil, cli.UsageError{Err: fmt.Errorf("--foreign: %w", err)}
	}
	for _, s := range samples {
		for _, q := range s.Questions {
			qs = append(qs, q.Text)
		}
	}
	return qs, nil
}

// writeSetup prints the retrieval setup a dev-set run measured.
func writeSetup(w io.Writer, embedder string, cfg core.Config) {
	r := cfg.Retriever
	fmt.Fprintf(w, "embedder %s, chunker %s, fusion %s (vector %.2f, bm25 %.2f)\n", embedder, cfg.Chunker.Name, r.Fusion, r.VectorWeight, r.BM25Weight)
}

// writeTimes prints a dev-set run's ingest and recall times.
func writeTimes(w io.Writer, ingest, recall float64, questions, errors int) {
	fmt.Fprintf(w, "ingest %.1fs, recall %.1fs (%.1f ms/question), %d errors\n", ingest, recall, 1000*recall/float64(max(questions, 1)), errors)
}
