package perf

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/bench/synth"
)

// Ingest benchmark: generate a large chat export, ingest it
// with one `huimem ingest` process, and report its throughput and peak
// RSS, at sizes that double, to show that memory does not grow with the
// file.

// ExportFormats are the formats [WriteExport] can generate.
var ExportFormats = []string{"jsonl", "chatgpt"}

// exportChunk is how many exchange pairs are generated at a time.
const exportChunk = 2000

// WriteExport writes a seeded synthetic export of about size bytes to
// path, in format "jsonl" (HuiMemory's JSONL) or "chatgpt" (a
// conversations.json array of mapping trees, one conversation a session),
// streaming it, and returns how many messages it holds. Every session id
// is unique, so no message repeats.
func WriteExport(path, format string, size int64, seed uint64) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := &countWriter{w: bufio.NewWriterSize(f, 1<<20)}
	n, err := writeExport(w, format, size, seed)
	if ferr := w.w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

type countWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func writeExport(w *countWriter, format string, size int64, seed uint64) (int, error) {
	if format != "jsonl" && format != "chatgpt" {
		return 0, fmt.Errorf("perf: no generator for format %q (have jsonl, chatgpt)", format)
	}
	start := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	msgs := 0
	if format == "chatgpt" {
		w.Write([]byte("[\n"))
	}
	first := true
	for round := 0; w.n < size; round++ {
		part := synth.Corpus(synth.Options{Seed: seed + uint64(round), Pairs: exportChunk,
			Start: start.Add(time.Duration(round) * 7 * 24 * time.Hour), Span: 7 * 24 * time.Hour})
		for i := range part {
			part[i].Session = fmt.Sprintf("g%05d-%s", round, part[i].Session)
		}
		if format == "jsonl" {
			for _, m := range part {
				if err := enc.Encode(map[string]string{"session": m.Session, "time": m.Time.Format(time.RFC3339),
					"role": string(m.Role), "text": m.Text}); err != nil {
					return msgs, err
				}
				msgs++
			}
			continue
		}
		for i := 0; i < len(part); {
			j := i
			for j < len(part) && part[j].Session == part[i].Session {
				j++
			}
			if !first {
				w.Write([]byte(",\n"))
			}
			first = false
			if err := enc.Encode(chatGPTConversation(part[i:j])); err != nil {
				return msgs, err
			}
			msgs += j - i
			i = j
		}
	}
	if format == "chatgpt" {
		w.Write([]byte("]\n"))
	}
	return msgs, nil
}

// chatGPTConversation renders one session as a ChatGPT conversation: a
// linear mapping tree from a root node to the current node.
func chatGPTConversation(msgs []core.Message) map[string]any {
	mapping := map[string]any{}
	parent := "root"
	mapping["root"] = map[string]any{"id": "root", "message": nil, "parent": nil, "children": []string{}}
	for i, m := range msgs {
		id := fmt.Sprintf("%s-%d", m.Session, i)
		mapping[id] = map[string]any{
			"id": id, "parent": parent, "children": []string{},
			"message": map[string]any{
				"id": id, "author": map[string]any{"role": string(m.Role)},
				"create_time": float64(m.Time.UnixMicro()) / 1e6,
				"content":     map[string]any{"content_type": "text", "parts": []string{m.Text}},
			},
		}
		parent = id
	}
	return map[string]any{
		"id": msgs[0].Session, "conversation_id": msgs[0].Session, "title": msgs[0].Session,
		"create_time": float64(msgs[0].Time.Unix()), "mapping": mapping, "current_node": parent,
	}
}

// IngestRun is what one `huimem ingest` process of a generated export
// cost.
type IngestRun struct {
	Format   string  `json:"format"`
	Bytes    int64   `json:"bytes"`
	Messages int     `json:"messages"`
	WallS    float64 `json:"wall_s"`
	CPUS     float64 `json:"cpu_s"`
	PeakRSS  int64   `json:"peak_rss_bytes"`
	// PeakAnon is the largest anonymous resident memory seen (Linux's
	// RssAnon, sampled every 100 ms; 0 where it cannot be read): the
	// process's own memory, without the pages of the store's and the
	// index's files that it maps, which PeakRSS counts and which stay
	// in the page cache when the process lets them go.
	PeakAnon int64   `json:"peak_anon_bytes,omitempty"`
	MBPerS   float64 `json:"mb_per_s"`
	MsgPerS  float64 `json:"messages_per_s"`
	// Load is the 1-minute load average before and after.
	Load [2]float64 `json:"load_avg"`
}

// RunIngest generates an export of size bytes in format under dir,
// ingests it into a new home there with one process of exe (extra flags
// after "ingest"), and measures it; it removes the home and the file
// unless keep is set.
func RunIngest(ctx context.Context, exe, dir, format string, size int64, keep bool, env []string, extra ...string) (*IngestRun, error) {
	name := fmt.Sprintf("export-%s-%d.jsonl", format, size>>20)
	if format == "chatgpt" {
		name = fmt.Sprintf("conversations-%d.json", size>>20)
	}
	path := filepath.Join(dir, name)
	msgs, err := WriteExport(path, format, size, 1)
	if err != nil {
		return nil, fmt.Errorf("generating %s: %w", path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	home := filepath.Join(dir, "home-"+format+"-"+strconv.FormatInt(size>>20, 10))
	if !keep {
		defer os.Remove(path)
		defer os.RemoveAll(home)
	}
	res := &IngestRun{Format: format, Bytes: fi.Size(), Messages: msgs, Load: [2]float64{loadAvg(), 0}}
	args := append([]string{"--home", home, "ingest", "--quiet", "--format", format}, extra...)
	cmd := exec.CommandContext(ctx, exe, append(args, path)...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	began := time.Now()
	err = cmd.Start()
	if err == nil {
		stop := make(chan struct{})
		sampled := make(chan int64)
		go func() { sampled <- sampleAnon(cmd.Process.Pid, stop) }()
		err = cmd.Wait()
		close(stop)
		res.PeakAnon = <-sampled
	}
	res.WallS = time.Since(began).Seconds()
	if err != nil {
		return nil, fmt.Errorf("%s %v: %w\n%s", exe, args, err, out.Bytes())
	}
	ps := cmd.ProcessState
	res.MBPerS = float64(res.Bytes) / (1 << 20) / res.WallS
	res.MsgPerS = float64(res.Messages) / res.WallS
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		res.PeakRSS = ru.Maxrss * 1024
	}
	res.CPUS = (ps.UserTime() + ps.SystemTime()).Seconds()
	res.Load[1] = loadAvg()
	return res, nil
}

// sampleAnon reads the RssAnon line of process pid's /proc status every
// 100 ms until stop is closed, and returns the largest value in bytes (0
// where there is none to read).
func sampleAnon(pid int, stop <-chan struct{}) int64 {
	path := fmt.Sprintf("/proc/%d/status", pid)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var peak int64
	for {
		if data, err := os.ReadFile(path); err == nil {
			peak = max(peak, statusKB(data, "RssAnon:")*1024)
		}
		select {
		case <-stop:
			return peak
		case <-tick.C:
		}
	}
}

// statusKB returns the value in kB of the line of a /proc status file
// that starts with key, or 0.
func statusKB(status []byte, key string) int64 {
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte(key)); ok {
			var kb int64
			fmt.Sscanf(string(rest), "%d", &kb)
			return kb
		}
	}
	return 0
}

// loadAvg returns the 1-minute load average, or 0.
func loadAvg() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var f float64
	fmt.Sscanf(string(data), "%f", &f)
	return f
}
