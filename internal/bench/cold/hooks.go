package cold

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/bench/perf"
	"github.com/huimemory/huimemory/internal/bench/synth"
)

// HookOptions shape a run of [RunHooks].
type HookOptions struct {
	// Exe is the huimem binary to run.
	Exe string
	// Chunks is the size of the project's memory in turn chunks.
	Chunks int
	// Runs is how many hook processes of each event to time (default 50).
	Runs int
	// Dir is a scratch folder.
	Dir string
	// Env is added to each child's environment (HUIMEM_* settings).
	Env []string
}

// HookResult is one size's hook latencies, each of a whole `huimem hook
// claude-code` process, from its start to its exit.
type HookResult struct {
	Chunks    int    `json:"chunks"`
	Namespace string `json:"namespace"`
	Embedder  string `json:"embedder"`
	// Ingest is the one `huimem ingest` that built the project's memory.
	Ingest Proc `json:"ingest"`
	// Stop captures a session transcript that grew by one exchange (a
	// prompt and a reply, two lines) since the capture before.
	Stop Latency `json:"stop"`
	// SessionStart prints the wake-up context.
	SessionStart Latency `json:"session_start"`
	// UserPromptSubmit recalls for a prompt; PromptsWithContext of them
	// printed memories (the others found nothing above the floor).
	UserPromptSubmit   Latency `json:"user_prompt_submit"`
	PromptsWithContext int     `json:"prompts_with_context"`
	// Load is the 1-minute load average before and after the run.
	Load [2]float64 `json:"load_avg"`
}

// Latency summarises the wall times of repeated processes.
type Latency struct {
	Runs        int     `json:"runs"`
	P50MS       float64 `json:"p50_ms"`
	P99MS       float64 `json:"p99_ms"`
	MaxMS       float64 `json:"max_ms"`
	MedianCPUMS float64 `json:"median_cpu_ms"`
	MaxPeakRSS  int64   `json:"max_peak_rss_bytes"`
}

// sessionExchanges is how many exchanges the captured session holds
// before the timed Stops.
const sessionExchanges = 50

// RunHooks builds a project's memory of o.Chunks chunks with one ingest
// process, captures a Claude Code session into it, then times o.Runs
// hook processes of each kind: Stop after the session grew by one
// exchange, SessionStart, and UserPromptSubmit with a different prompt
// each time. One untimed process of each kind runs first.
func RunHooks(ctx context.Context, o HookOptions) (*HookResult, error) {
	if o.Runs <= 0 {
		o.Runs = 50
	}
	run := Options{Exe: o.Exe, Dir: o.Dir, Env: o.Env}
	res := &HookResult{Chunks: o.Chunks, Load: [2]float64{LoadAvg(), 0}}
	project := filepath.Join(o.Dir, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		return nil, err
	}
	home := filepath.Join(o.Dir, "home")
	_, out, err := run.runIn(ctx, project, nil, "--home", home, "hooks", "namespace")
	if err != nil {
		return nil, fmt.Errorf("hooks namespace: %w", err)
	}
	res.Namespace = strings.TrimSpace(string(out))
	data := filepath.Join(o.Dir, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, err
	}
	msgs := synth.Corpus(synth.Options{Seed: 1, Pairs: o.Chunks})
	if _, err := perf.WriteFiles(data, msgs, 100000); err != nil {
		return nil, err
	}
	if res.Ingest, _, err = run.run(ctx, "--home", home, "ingest", "--quiet", "-n", res.Namespace, data); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if _, res.Embedder, err = run.homeStats(ctx, home); err != nil {
		return nil, err
	}

	// The agent's session: sessionExchanges exchanges, then one more
	// before each Stop.
	const session = "5f0c2a1e-7b3d-4c9e-8a6f-0d1e2f3a4b5c"
	transcript := filepath.Join(o.Dir, session+".jsonl")
	talk := synth.Corpus(synth.Options{Seed: 2, Pairs: sessionExchanges + o.Runs + 1, PerSession: 1 << 20,
		Start: time.Now().Add(-24 * time.Hour), Span: time.Hour})
	tf, err := os.Create(transcript)
	if err != nil {
		return nil, err
	}
	defer tf.Close()
	exchange := 0
	grow := func() error {
		for i, m := range talk[2*exchange : 2*exchange+2] {
			if _, err := tf.Write(claudeCodeLine(session, 2*exchange+i, m)); err != nil {
				return err
			}
		}
		exchange++
		return nil
	}
	hook := func(payload map[string]any) (Proc, []byte, error) {
		payload["session_id"], payload["cwd"] = session, project
		b, _ := json.Marshal(payload)
		return run.runIn(ctx, project, b, "--home", home, "hook", "claude-code")
	}
	stop := map[string]any{"hook_event_name": "Stop", "transcript_path": transcript, "stop_hook_active": false}
	for exchange < sessionExchanges {
		if err := grow(); err != nil {
			return nil, err
		}
	}
	var stops, starts, prompts []Proc
	for i := range o.Runs + 1 {
		if err := grow(); err != nil {
			return nil, err
		}
		p, _, err := hook(stop)
		if err != nil {
			return nil, fmt.Errorf("Stop: %w", err)
		}
		if i > 0 {
			stops = append(stops, p)
		}
	}
	for i := range o.Runs + 1 {
		p, out, err := hook(map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
		if err != nil {
			return nil, fmt.Errorf("SessionStart: %w", err)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("SessionStart printed no wake-up context")
		}
		if i > 0 {
			starts = append(starts, p)
		}
	}
	queries := perf.QueryTexts(o.Runs + 1)
	for i, q := range queries {
		p, out, err := hook(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": q})
		if err != nil {
			return nil, fmt.Errorf("UserPromptSubmit: %w", err)
		}
		if i > 0 {
			prompts = append(prompts, p)
			if len(out) > 0 {
				res.PromptsWithContext++
			}
		}
	}
	res.Stop, res.SessionStart, res.UserPromptSubmit = latency(stops), latency(starts), latency(prompts)
	res.Load[1] = LoadAvg()
	return res, nil
}

// claudeCodeLine is the n-th line of a Claude Code session file, holding
// m.
func claudeCodeLine(session string, n int, m core.Message) []byte {
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var content any = m.Text
	if m.Role == core.RoleAssistant {
		content = []block{{"text", m.Text}}
	}
	line := map[string]any{
		"type": string(m.Role), "sessionId": session, "uuid": fmt.Sprintf("%08x-0000-4000-8000-000000000000", n),
		"timestamp": m.Time.UTC().Format(time.RFC3339Nano), "cwd": "/work/project",
		"message": map[string]any{"role": string(m.Role), "content": content},
	}
	b, _ := json.Marshal(line)
	return append(b, '\n')
}

func latency(ps []Proc) Latency {
	s := stats(ps)
	walls := make([]float64, len(ps))
	for i, p := range ps {
		walls[i] = p.WallMS
	}
	slices.Sort(walls)
	return Latency{Runs: s.Runs, P50MS: s.MedianMS, P99MS: percentile(walls, 0.99), MaxMS: s.MaxMS,
		MedianCPUMS: s.MedianCPUMS, MaxPeakRSS: s.MaxPeakRSS}
}
