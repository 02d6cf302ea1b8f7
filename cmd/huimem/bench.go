package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/locomo"
	"github.com/huimemory/huimemory/internal/render"
)

func (a *app) benchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Benchmarks: retrieval quality on LoCoMo, and performance",
	}
	cmd.AddCommand(a.benchLocomoCmd(), a.benchPerfCmd())
	return cmd
}

func (a *app) benchLocomoCmd() *cobra.Command {
	var data, ks, out string
	var asJSON, captions, noTime, keep bool
	cmd := &cobra.Command{
		Use:   "locomo --data PATH [--k 5,10] [--json] [--out FILE]",
		Short: "Evaluate evidence recall on LoCoMo with the configured chunker and embedder",
		Long: `Evaluate evidence recall on LoCoMo (snap-research/LoCoMo). Each conversation
is converted to generic JSONL and ingested into its own namespace of a
scratch home (or --home), and each question runs through batch recall.
Reports message-level recall@k overall and per category, session-level
recall@10, MRR and NDCG@10. --out writes every question's refs as JSON.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if data == "" {
				return usagef("bench locomo: --data is required")
			}
			var kList []int
			for _, f := range strings.Split(ks, ",") {
				k, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil || k < 1 || k > 100 {
					return usagef("bench locomo: --k %q: want numbers from 1 to 100, such as 5,10", ks)
				}
				kList = append(kList, k)
			}
			samples, err := locomo.Load(data)
			if err != nil {
				return usageError{err}
			}
			work, err := os.MkdirTemp("", "huimem-locomo-")
			if err != nil {
				return err
			}
			if !keep {
				defer os.RemoveAll(work)
			}
			if a.home == "" {
				a.home = work + "/home"
			}
			e, cfg, err := a.open(cmd.Context(), engine.Options{})
			if err != nil {
				return err
			}
			defer e.Close()
			rep, err := locomo.Run(cmd.Context(), e, samples, locomo.Options{Ks: kList, Captions: captions, NoTime: noTime, WorkDir: work})
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
				err := render.JSON(a.stdout, rep)
				rep.PerQuestion = detail
				return err
			}
			w := a.stdout
			r := cfg.Retriever
			fmt.Fprintf(w, "LoCoMo: %d conversations, %d questions, %d messages\n", rep.Samples, rep.Questions, rep.Messages)
			fmt.Fprintf(w, "embedder %s, chunker %s, fusion %s (vector %.2f, bm25 %.2f)\n", rep.EmbedderInfo, cfg.Chunker.Name, r.Fusion, r.VectorWeight, r.BM25Weight)
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
			fmt.Fprintf(w, "ingest %.1fs, recall %.1fs (%.1f ms/question), %d errors\n", rep.IngestSeconds, rep.RecallSeconds,
				1000*rep.RecallSeconds/float64(max(rep.Questions, 1)), rep.Errors)
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
	return cmd
}
