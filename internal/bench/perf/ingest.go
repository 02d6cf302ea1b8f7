package perf

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
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

// ExportLayouts are the ways [RunIngest] lays an export out: "file", one
// export file, and "folder", a folder of one file per session holding the
// same messages.
var ExportLayouts = []string{"file", "folder"}

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
	enc := newEncoder(w)
	first := true
	if format == "chatgpt" {
		w.Write([]byte("[\n"))
	}
	n, err := generate(format, seed, func() int64 { return w.n }, func(sess []core.Message) error {
		if format == "jsonl" {
			return encodeJSONL(enc, sess)
		}
		if !first {
			w.Write([]byte(",\n"))
		}
		first = false
		return enc.Encode(chatGPTConversation(sess))
	}, size)
	if format == "chatgpt" {
		w.Write([]byte("]\n"))
	}
	if ferr := w.w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// WriteExportFolder writes the messages [WriteExport] writes for the same
// format, size and seed into the folder dir (made if missing), one file a
// session: <session>.jsonl for "jsonl", <session>.json holding a one-conversation
// array for "chatgpt". It returns how many messages and files it wrote.
func WriteExportFolder(dir, format string, size int64, seed uint64) (msgs, files int, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, 0, err
	}
	// The file layout's size counts the chatgpt array's brackets and
	// separators; counting them here too keeps the messages the same.
	var total int64
	if format == "chatgpt" {
		total = 2
	}
	buf := &bytes.Buffer{}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	msgs, err = generate(format, seed, func() int64 { return total }, func(sess []core.Message) error {
		buf.Reset()
		ext := ".jsonl"
		if format == "jsonl" {
			if err := encodeJSONL(enc, sess); err != nil {
				return err
			}
		} else {
			ext = ".json"
			buf.WriteString("[\n")
			if err := enc.Encode(chatGPTConversation(sess)); err != nil {
				return err
			}
			buf.WriteString("]\n")
			if files > 0 {
				total += 2 // ",\n"
			}
			total -= 4 // the brackets the file layout writes once
		}
		total += int64(buf.Len())
		files++
		return os.WriteFile(filepath.Join(dir, sess[0].Session+ext), buf.Bytes(), 0o644)
	}, size)
	return msgs, files, err
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

func newEncoder(w *countWriter) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

func encodeJSONL(enc *json.Encoder, sess []core.Message) error {
	for _, m := range sess {
		if err := enc.Encode(map[string]string{"session": m.Session, "time": m.Time.Format(time.RFC3339),
			"role": string(m.Role), "text": m.Text}); err != nil {
			return err
		}
	}
	return nil
}

// generate makes seeded sessions of unique ids, a round of exportChunk
// pairs at a time, and hands each to emit until written() reaches size;
// it returns how many messages it handed over.
func generate(format string, seed uint64, written func() int64, emit func([]core.Message) error, size int64) (int, error) {
	if format != "jsonl" && format != "chatgpt" {
		return 0, fmt.Errorf("perf: no generator for format %q (have jsonl, chatgpt)", format)
	}
	start := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	msgs := 0
	for round := 0; written() < size; round++ {
		part := synth.Corpus(synth.Options{Seed: seed + uint64(round), Pairs: exportChunk,
			Start: start.Add(time.Duration(round) * 7 * 24 * time.Hour), Span: 7 * 24 * time.Hour})
		for i := range part {
			part[i].Session = fmt.Sprintf("g%05d-%s", round, part[i].Session)
		}
		for i := 0; i < len(part); {
			j := i
			for j < len(part) && part[j].Session == part[i].Session {
				j++
			}
			if err := emit(part[i:j]); err != nil {
				return msgs, err
			}
			msgs += j - i
			i = j
		}
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
	Format string `json:"format"`
	// Layout is "file" or "folder" (see [ExportLayouts]); Files is how
	// many files the export was.
	Layout   string  `json:"layout"`
	Files    int     `json:"files"`
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

// RunIngest generates an export of size bytes in format and layout
// ("file" or "folder", see [ExportLayouts]) under dir, ingests it into a
// new home there with one process of exe (extra flags after "ingest"),
// and measures it; it removes the home and the export unless keep is set.
func RunIngest(ctx context.Context, exe, dir, format, layout string, size int64, keep bool, env []string, extra ...string) (*IngestRun, error) {
	name := fmt.Sprintf("export-%s-%d.jsonl", format, size>>20)
	if format == "chatgpt" {
		name = fmt.Sprintf("conversations-%d.json", size>>20)
	}
	var msgs, files int
	var onDisk int64
	var err error
	switch layout {
	case "file":
		files = 1
		msgs, err = WriteExport(filepath.Join(dir, name), format, size, 1)
	case "folder":
		name = fmt.Sprintf("folder-%s-%d", format, size>>20)
		msgs, files, err = WriteExportFolder(filepath.Join(dir, name), format, size, 1)
	default:
		err = fmt.Errorf("perf: no layout %q (have file, folder)", layout)
	}
	path := filepath.Join(dir, name)
	if err == nil {
		onDisk, err = diskSize(path)
	}
	if err != nil {
		return nil, fmt.Errorf("generating %s: %w", path, err)
	}
	home := filepath.Join(dir, "home-"+format+"-"+layout+"-"+strconv.FormatInt(size>>20, 10))
	if !keep {
		defer os.RemoveAll(path)
		defer os.RemoveAll(home)
	}
	res := &IngestRun{Format: format, Layout: layout, Files: files, Bytes: onDisk, Messages: msgs, Load: [2]float64{loadAvg(), 0}}
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

// diskSize is the size of the file at path, or of the files under it.
func diskSize(path string) (int64, error) {
	var n int64
	err := filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		n += fi.Size()
		return err
	})
	return n, err
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
