package bench

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/bench/beam"
	"github.com/huimemory/huimemory/internal/bench/locomo"
	"github.com/huimemory/huimemory/internal/bench/memorybank"
	"github.com/huimemory/huimemory/internal/cli"
	"github.com/huimemory/huimemory/internal/render"
)

// zhChats converts the MemoryBank Chinese chats in dataDir into a BEAM
// folder under work and loads it.
func zhChats(dataDir, work string) ([]beam.Chat, error) {
	dir := filepath.Join(work, "zh")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	qs, err := memorybank.Labelled()
	if err != nil {
		return nil, err
	}
	if _, err := memorybank.Convert(dataDir, dir, qs); err != nil {
		return nil, cli.UsageError{Err: err}
	}
	return beam.Load(dir)
}

func (a *app) benchZhCmd() *cobra.Command {
	var data, ks, out string
	var asJSON, noTime, polluted bool
	cmd := &cobra.Command{
		Use:   "zh --data DIR [--k 5,10] [--json] [--out FILE]",
		Short: "Evaluate evidence recall on the Chinese dev set (MemoryBank chats, labelled questions)",
		Long: `Evaluate message-level evidence recall on the Chinese dev set: the
MemoryBank Chinese chats in DIR (memory_bank_cn.json, such as
../shared/bench/memorybank-zh) with the labelled questions built into
huimem (internal/memorybank). Each user's chats are ingested into their own
namespace of a scratch home (or --home), and each question runs through
batch recall with now set to the day after the user's last session.
Reports recall@k overall and per category beside plain BM25, MRR and NDCG@10.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if data == "" {
				return cli.Usagef("zh: --data is required")
			}
			kList, err := parseKs("zh", ks)
			if err != nil {
				return err
			}
			work, err := os.MkdirTemp("", "huimem-zh-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(work)
			chats, err := zhChats(data, work)
			if err != nil {
				return err
			}
			if a.Home == "" {
				a.Home = work + "/home"
			}
			e, cfg, err := a.Open(cmd.Context(), engine.Options{})
			if err != nil {
				return err
			}
			defer e.Close()
			opts := beam.Options{Ks: kList, NoTime: noTime}
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
			base, baseCat, err := beam.Baseline(chats, kList)
			if err != nil {
				return err
			}
			if asJSON {
				rep.PerQuestion = nil
				return render.JSON(a.Stdout, struct {
					*beam.Report
					BM25           map[int]float64            `json:"plain_bm25"`
					BM25ByCategory map[string]map[int]float64 `json:"plain_bm25_by_category"`
				}{rep, base, baseCat})
			}
			w := a.Stdout
			fmt.Fprintf(w, "Chinese dev set: %d users, %d questions, %d messages\n", rep.Chats, rep.Questions, rep.Messages)
			writeSetup(w, rep.EmbedderInfo, cfg)
			fmt.Fprintf(w, "%-22s %9s %10s\n", "", "huimem", "plain BM25")
			for _, k := range kList {
				fmt.Fprintf(w, "%-22s %9.3f %10.3f\n", fmt.Sprintf("recall@%d", k), rep.Recall[k], base[k])
			}
			for _, c := range slices.Sorted(maps.Keys(rep.CategoryCount)) {
				fmt.Fprintf(w, "  %-12s %3d q R@10 %9.3f %10.3f\n", c, rep.CategoryCount[c], rep.ByCategory[c][10], baseCat[c][10])
			}
			fmt.Fprintf(w, "MRR %.3f, NDCG@10 %.3f\n", rep.MRR, rep.NDCG)
			writeTimes(w, rep.IngestSeconds, rep.RecallSeconds, rep.Questions, rep.Errors)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "", "MemoryBank Chinese folder, such as ../shared/bench/memorybank-zh")
	f.StringVar(&ks, "k", "5,10", "recall cut-offs")
	f.StringVar(&out, "out", "", "write every question's refs and recall to this JSON file")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.BoolVar(&noTime, "no-time", false, "do not resolve time phrases in the questions")
	f.BoolVar(&polluted, "polluted", false, "paste an agent system prompt in front of every question")
	return cmd
}

// devRow is one dev set's line in `bench dev`.
type devRow struct {
	Set       string  `json:"set"`
	Questions int     `json:"questions"`
	Recall10  float64 `json:"recall_at_10"`
	BM25      float64 `json:"plain_bm25_recall_at_10"`
	Seconds   float64 `json:"seconds"`
}

func (a *app) benchDevCmd() *cobra.Command {
	var zh, loc, bm string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "dev [--zh DIR] [--locomo FILE] [--beam DIR] [--json]",
		Short: "R@10 of the configured defaults on all three dev sets, beside plain BM25",
		Long: `Run the three dev sets (Chinese, LoCoMo, BEAM) with the configured
retriever, each in its own scratch home, and print message-level R@10
beside plain BM25 (internal/plainbm25) on the same data. Judge a ranking
change on all three.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			work, err := os.MkdirTemp("", "huimem-dev-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(work)
			ks := []int{10}
			var rows []devRow
			runChats := func(set string, chats []beam.Chat) error {
				a.Home = filepath.Join(work, set)
				e, _, err := a.Open(cmd.Context(), engine.Options{})
				if err != nil {
					return err
				}
				defer e.Close()
				rep, err := beam.Run(cmd.Context(), e, chats, beam.Options{Ks: ks})
				if err != nil {
					return fmt.Errorf("%s: %w", set, err)
				}
				base, _, err := beam.Baseline(chats, ks)
				if err != nil {
					return err
				}
				rows = append(rows, devRow{Set: set, Questions: rep.Questions, Recall10: rep.Recall[10], BM25: base[10],
					Seconds: rep.IngestSeconds + rep.RecallSeconds})
				return nil
			}
			if zh != "" {
				chats, err := zhChats(zh, work)
				if err != nil {
					return err
				}
				if err := runChats("chinese", chats); err != nil {
					return err
				}
			}
			if loc != "" {
				samples, err := locomo.Load(loc)
				if err != nil {
					return cli.UsageError{Err: err}
				}
				a.Home = filepath.Join(work, "locomo")
				e, _, err := a.Open(cmd.Context(), engine.Options{})
				if err != nil {
					return err
				}
				rep, err := locomo.Run(cmd.Context(), e, samples, locomo.Options{Ks: ks, Captions: true, WorkDir: work})
				e.Close()
				if err != nil {
					return fmt.Errorf("locomo: %w", err)
				}
				rows = append(rows, devRow{Set: "locomo", Questions: rep.Questions, Recall10: rep.Recall[10],
					BM25: locomo.Baseline(samples, true, ks)[10], Seconds: rep.IngestSeconds + rep.RecallSeconds})
			}
			if bm != "" {
				chats, err := beam.Load(bm)
				if err != nil {
					return cli.UsageError{Err: err}
				}
				if err := runChats("beam", chats); err != nil {
					return err
				}
			}
			if len(rows) == 0 {
				return cli.Usagef("dev: give at least one of --zh, --locomo, --beam")
			}
			if asJSON {
				return render.JSON(a.Stdout, rows)
			}
			fmt.Fprintf(a.Stdout, "%-8s %9s %12s %15s %8s\n", "set", "questions", "huimem R@10", "plain BM25 R@10", "seconds")
			for _, r := range rows {
				fmt.Fprintf(a.Stdout, "%-8s %9d %12.3f %15.3f %8.1f\n", r.Set, r.Questions, r.Recall10, r.BM25, r.Seconds)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&zh, "zh", "", "MemoryBank Chinese folder, such as ../shared/bench/memorybank-zh")
	f.StringVar(&loc, "locomo", "", "LoCoMo JSON file, such as ../shared/bench/locomo/locomo-dev.json")
	f.StringVar(&bm, "beam", "", "BEAM folder, such as ../shared/bench/beam/100K-dev")
	f.BoolVar(&asJSON, "json", false, "print the rows as JSON")
	return cmd
}
