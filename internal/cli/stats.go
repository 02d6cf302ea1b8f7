package cli

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/plugins/host"
)

func (a *App) statsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats [--json]",
		Short: "Count what the home holds",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runQuery(a, cmd, query[statsReport]{
				JSON: asJSON,
				Ask: func(ctx context.Context, e *engine.Engine) (statsReport, error) {
					s, err := e.Stats(ctx)
					return statsReport{Stats: s, EmbedderChoice: a.embedder}, err
				},
				Text: printStats,
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// statsReport is what `huimem stats` prints: the engine's counts and
// which embedder runs, and why.
type statsReport struct {
	engine.Stats
	EmbedderChoice host.EmbedderChoice `json:"embedder_choice"`
}

// printStats prints what the home holds.
func printStats(w io.Writer, s statsReport, _ error) error {
	fmt.Fprintf(w, "home:       %s\n", s.Home)
	fmt.Fprintf(w, "chunks:     %d\nmessages:   %d\nsessions:   %d\n", s.Chunks, s.Messages, s.Sessions)
	names := make([]string, 0, len(s.Namespaces))
	for ns := range s.Namespaces {
		names = append(names, ns)
	}
	sort.Strings(names)
	for _, ns := range names {
		label := ns
		if label == "" {
			label = "(default)"
		}
		fmt.Fprintf(w, "  namespace %s: %d chunks\n", label, s.Namespaces[ns])
	}
	fmt.Fprintf(w, "embedder:   %s (%s, %d dimensions)\n", s.Embedder.Name, s.Embedder.Model, s.Embedder.Dim)
	if c := s.EmbedderChoice; c.Auto {
		fmt.Fprintf(w, "            auto: %s\n", c.Reason)
	}
	fmt.Fprintf(w, "index:      %d documents, generation %d of %d, %d pending\n", s.IndexDocs, s.IndexGen, s.Generation, s.Pending)
	switch f := s.Floor; {
	case f.MinRelevance <= 0:
		fmt.Fprintf(w, "floor:      none (retriever.min_relevance is 0)\n")
	case f.SimilarityWeight > 0:
		fmt.Fprintf(w, "floor:      nothing found unless relevance + %g × (cosine − %g) reaches %g (from %d chunks)\n",
			f.SimilarityWeight, f.SimilarityCenter, f.MinRelevance, f.MinChunks)
	default:
		fmt.Fprintf(w, "floor:      nothing found unless relevance reaches %g (from %d chunks)\n", f.MinRelevance, f.MinChunks)
	}
	if s.Backend != core.BackendEmbedded {
		fmt.Fprintf(w, "backend:    %s\n", s.Backend)
		return nil
	}
	fmt.Fprintf(w, "disk:       store %s, index %s, sessions %s\n", bytesize(s.StoreBytes), bytesize(s.IndexBytes), bytesize(s.FilesBytes))
	return nil
}

func bytesize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
