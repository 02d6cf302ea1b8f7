package host

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/embedder"
	"github.com/huimemory/huimemory/plugins/embedder/hash"
)

func isErr(err, target error) bool { return errors.Is(err, target) }

// faultyEmbedder returns a host whose embedder is the faulty test plugin
// run with args, and that embedder's process handle.
func faultyEmbedder(t *testing.T, timeout time.Duration, args ...string) (*Host, *embedderProc) {
	t.Helper()
	cfg := testConfig(t, func(c *core.Config) {
		c.Embedding.PluginSpec = faulty(append([]string{"-kind", "embedder"}, args...)...)
		c.Plugins.Timeout = timeout
	})
	h := newHost(t, cfg)
	return h, h.Embedder().(*embedderProc)
}

// running returns the plugin's running process, starting it if needed.
func running(t *testing.T, p *proc) *conn {
	t.Helper()
	c, err := p.get(t.Context())
	if err != nil {
		t.Fatalf("starting the plugin: %v", err)
	}
	return c
}

// prefix is how errors about the faulty embedder start.
func prefix() string { return `plugin embedder "faulty" (` + bins.faulty + `): ` }

func TestEmbedderPluginWorks(t *testing.T) {
	_, emb := faultyEmbedder(t, time.Minute)
	info, err := emb.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := (core.EmbedderInfo{Name: "faulty", Model: "faulty-ok", Dim: 8}); info != want {
		t.Errorf("Info = %+v, want %+v", info, want)
	}
	vecs, err := emb.Embed(t.Context(), []string{"a", "b"})
	if err != nil || len(vecs) != 2 || len(vecs[0]) != 8 {
		t.Fatalf("Embed = %d vectors, %v", len(vecs), err)
	}
}

func TestCrashDuringCall(t *testing.T) {
	for _, tc := range []struct{ word, stderr string }{
		{"CRASH", ""},
		{"PANIC", `stderr: "panic: faulty: PANIC in input"`},
	} {
		t.Run(tc.word, func(t *testing.T) {
			_, emb := faultyEmbedder(t, time.Minute)
			before := running(t, emb.p).cmd.Process.Pid
			_, err := emb.Embed(t.Context(), []string{"fine", "please " + tc.word + " now"})
			wantErr(t, err, ErrCrashed, prefix()+"crashed during the call: the plugin process exited", "starts again at the next call", tc.stderr)
			// The next call starts a new process.
			if _, err := emb.Embed(t.Context(), []string{"fine"}); err != nil {
				t.Fatalf("the call after the crash: %v", err)
			}
			if after := running(t, emb.p).cmd.Process.Pid; after == before {
				t.Errorf("the plugin was not restarted: pid %d both times", after)
			}
		})
	}
}

func TestKillBetweenCalls(t *testing.T) {
	_, emb := faultyEmbedder(t, time.Minute)
	if _, err := emb.Embed(t.Context(), []string{"one"}); err != nil {
		t.Fatal(err)
	}
	c := running(t, emb.p)
	before := c.cmd.Process.Pid
	if err := c.cmd.Process.Kill(); err != nil { // kill -9
		t.Fatal(err)
	}
	waitFor(t, "go-plugin to see the process exit", c.client.Exited)
	if _, err := emb.Embed(t.Context(), []string{"two"}); err != nil {
		t.Fatalf("the call after kill -9: %v", err)
	}
	if after := running(t, emb.p).cmd.Process.Pid; after == before {
		t.Errorf("the plugin was not restarted: pid %d both times", after)
	}
}

func TestKillDuringCall(t *testing.T) {
	_, emb := faultyEmbedder(t, time.Minute)
	pidFile := filepath.Join(t.TempDir(), "pid")
	errc := make(chan error, 1)
	go func() {
		_, err := emb.Embed(t.Context(), []string{"SLEEP:" + pidFile})
		errc <- err
	}()
	var pid int
	waitFor(t, "the plugin to start sleeping", func() bool {
		data, err := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(string(data))
		return err == nil && pid > 0
	})
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil { // kill -9
		t.Fatal(err)
	}
	wantErr(t, <-errc, ErrCrashed, prefix()+"crashed during the call")
	if _, err := emb.Embed(t.Context(), []string{"fine"}); err != nil {
		t.Fatalf("the call after kill -9: %v", err)
	}
}

func TestHangTimesOut(t *testing.T) {
	_, emb := faultyEmbedder(t, 2*time.Second)
	before := running(t, emb.p)
	_, err := emb.Embed(t.Context(), []string{"HANG"})
	wantErr(t, err, ErrTimeout, prefix()+"timed out: no answer within 2s (plugins.timeout)", "was stopped")
	waitFor(t, "the hung plugin to be gone", before.client.Exited)
	if _, err := emb.Embed(t.Context(), []string{"fine"}); err != nil {
		t.Fatalf("the call after the timeout: %v", err)
	}
}

func TestChecksum(t *testing.T) {
	data, err := os.ReadFile(bins.faulty)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	right := hex.EncodeToString(sum[:])
	wrong := strings.Repeat("ab", 32)

	t.Run("match", func(t *testing.T) {
		cfg := testConfig(t, func(c *core.Config) {
			c.Embedding.PluginSpec = faulty()
			c.Embedding.SHA256 = right
		})
		if _, err := newHost(t, cfg).Embedder().Embed(t.Context(), []string{"x"}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("mismatch", func(t *testing.T) {
		cfg := testConfig(t, func(c *core.Config) {
			c.Embedding.PluginSpec = faulty()
			c.Embedding.SHA256 = wrong
		})
		_, err := newHost(t, cfg).Embedder().Info(t.Context())
		wantErr(t, err, ErrChecksum, prefix()+"checksum mismatch: "+bins.faulty+" has sha256 "+right+", but the configuration wants "+wrong)
	})
	t.Run("malformed", func(t *testing.T) {
		cfg := testConfig(t, func(c *core.Config) {
			c.Embedding.PluginSpec = faulty()
			c.Embedding.SHA256 = "abc"
		})
		_, err := New(t.Context(), cfg, Options{Executable: bins.huimem})
		wantErr(t, err, core.ErrInvalid, prefix(), `sha256 "abc" is not 64 hex digits`)
	})
}

func TestBadPrograms(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-plugin")
	script := filepath.Join(t.TempDir(), "chatty.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho hello, I am not a plugin\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		spec core.PluginSpec
		want []string
	}{
		{"true", core.PluginSpec{Command: "/bin/true"},
			[]string{`plugin embedder "true" (/bin/true): failed to start: not a HuiMemory plugin, or the go-plugin handshake failed: the program exited without printing the handshake line`}},
		{"chatty", core.PluginSpec{Name: "chatty", Command: script},
			[]string{`failed to start: not a HuiMemory plugin, or the go-plugin handshake failed: the program printed "hello, I am not a plugin" instead of the handshake line`}},
		{"missing", core.PluginSpec{Name: "gone", Command: missing},
			[]string{`plugin embedder "gone" (` + missing + `): failed to start: `, "no such file or directory"}},
		{"protocol 2", faulty("-protocol", "2"),
			[]string{prefix() + "failed to start: not a HuiMemory plugin, or the go-plugin handshake failed: ", "Plugin version: 2, Client versions: [1]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, func(c *core.Config) { c.Embedding.PluginSpec = tc.spec })
			h := newHost(t, cfg)
			_, err := h.Embedder().Info(t.Context())
			wantErr(t, err, ErrStart, tc.want...)
			st := h.Check(t.Context())
			if st[0].Err == nil {
				t.Errorf("Check says the embedder starts")
			}
		})
	}
}

func TestBadVectors(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want string
	}{
		{"wrongdim", "invalid vector: vector 1 of 2 has dimension 9, but the plugin's Info says 8"},
		{"nan", "invalid vector: vector 1 of 2 has NaN at index 7"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			_, emb := faultyEmbedder(t, time.Minute, "-mode", tc.mode)
			_, err := emb.Embed(t.Context(), []string{"a", "b"})
			wantErr(t, err, embedder.ErrInvalidVector, prefix()+tc.want)
		})
	}
}

func TestOptions(t *testing.T) {
	t.Run("reach an external plugin", func(t *testing.T) {
		spec := faulty("-kind", "extractor")
		spec.Options = map[string]string{"lang": "en", "max": "3"}
		h := newHost(t, testConfig(t, func(c *core.Config) { c.Extractors = []core.PluginSpec{spec} }))
		mems, err := h.Extractors()[0].Extract(t.Context(), &core.Chunk{Text: "hello"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Join(mems[0].Facts, ","), "option lang=en,option max=3"; got != want {
			t.Errorf("facts = %q, want %q", got, want)
		}
	})
	t.Run("refused by a plugin that takes none", func(t *testing.T) {
		spec := faulty("-kind", "extractor", "-noconfig")
		spec.Options = map[string]string{"lang": "en"}
		h := newHost(t, testConfig(t, func(c *core.Config) { c.Extractors = []core.PluginSpec{spec} }))
		_, err := h.Extractors()[0].Extract(t.Context(), &core.Chunk{Text: "hello"})
		wantErr(t, err, ErrStart, `plugin extractor "faulty" (`+bins.faulty+`): failed to start: options were given, but the plugin takes none`)
	})
	t.Run("none to a plugin that takes none", func(t *testing.T) {
		h := newHost(t, testConfig(t, func(c *core.Config) {
			c.Extractors = []core.PluginSpec{faulty("-kind", "extractor", "-noconfig")}
		}))
		if _, err := h.Extractors()[0].Extract(t.Context(), &core.Chunk{Text: "hello"}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("reach a built-in process", func(t *testing.T) {
		h := newHost(t, testConfig(t, func(c *core.Config) { c.Embedding.Dim = 64 }))
		info, err := h.Embedder().Info(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if info.Dim != 64 {
			t.Errorf("dim = %d, want 64 from the configuration", info.Dim)
		}
		if _, ok := h.Embedder().(*embedderProc); !ok {
			t.Errorf("the built-in embedder runs in process, want a subprocess")
		}
	})
	t.Run("bad for a built-in process", func(t *testing.T) {
		h := newHost(t, testConfig(t, func(c *core.Config) {
			c.Chunker = core.PluginSpec{Name: "window", Options: map[string]string{"size": "big", "colour": "red"}}
		}))
		_, err := h.Chunker().Chunk(t.Context(), nil)
		wantErr(t, err, ErrStart, `plugin chunker "window" (built-in): failed to start: configure: chunker window: option size: "big" is not a whole number; option colour: unknown: the window chunker takes size, overlap`)
	})
}

func TestUnknownBuiltin(t *testing.T) {
	cfg := testConfig(t, func(c *core.Config) { c.Chunker.Name = "sentence" })
	_, err := New(t.Context(), cfg, Options{Executable: bins.huimem})
	wantErr(t, err, core.ErrInvalid, `plugin chunker "sentence" (built-in): `, "no built-in chunker is called \"sentence\" (built-in chunkers: markdown, message, turn, window)")
}

func TestCheckAndClose(t *testing.T) {
	cfg := testConfig(t, func(c *core.Config) {
		c.Extractors = []core.PluginSpec{faulty("-kind", "extractor"), {Name: "broken", Command: "/bin/true"}}
	})
	h := newHost(t, cfg)
	st := h.Check(t.Context())
	if len(st) != 4 {
		t.Fatalf("Check returned %d statuses, want 4", len(st))
	}
	for i, want := range []Status{
		{Kind: KindEmbedder, Name: "hash", Program: ProgramBuiltin, Info: Info{Name: "hash", Model: hash.Model, Dim: 256}},
		{Kind: KindChunker, Name: "turn", Program: ProgramBuiltin, Info: Info{Name: "turn"}},
		{Kind: KindExtractor, Name: "faulty", Program: bins.faulty, Info: Info{Name: "faulty"}},
		{Kind: KindExtractor, Name: "broken", Program: "/bin/true"},
	} {
		got := st[i]
		if got.Version == "" && got.Err == nil {
			t.Errorf("status %d has no version", i)
		}
		got.Version, got.Err = "", nil
		if got != want {
			t.Errorf("status %d = %+v, want %+v", i, got, want)
		}
	}
	if st[3].Err == nil || !errors.Is(st[3].Err, ErrStart) {
		t.Errorf("broken plugin: err = %v, want ErrStart", st[3].Err)
	}
	c := running(t, h.extractors[0].(*extractorProc).p)
	h.Close()
	waitFor(t, "the plugin process to end", c.client.Exited)
	_, err := h.Extractors()[0].Extract(t.Context(), &core.Chunk{Text: "x"})
	wantErr(t, err, ErrClosed, `plugin extractor "faulty"`)
}

func TestInProcess(t *testing.T) {
	for _, tt := range []struct {
		name          string
		subprocess    bool
		opts          Options
		wantInProcess bool
	}{
		{"default", false, Options{Executable: bins.huimem}, true},
		{"plugins.subprocess", true, Options{Executable: bins.huimem}, false},
		{"no executable", true, Options{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(t, func(c *core.Config) {
				c.Plugins.Subprocess = tt.subprocess
				c.Chunker.Name = "window"
				c.Chunker.Options = map[string]string{"size": "200"}
			})
			h, err := New(t.Context(), cfg, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			if _, proc := h.Embedder().(*embedderProc); proc == tt.wantInProcess {
				t.Errorf("embedder runs as a process: %v, want %v", proc, !tt.wantInProcess)
			}
			for _, st := range h.Check(t.Context()) {
				if st.InProcess != tt.wantInProcess || st.Err != nil {
					t.Errorf("status %+v, want in process %v, no error", st, tt.wantInProcess)
				}
			}
		})
	}
}

func TestMessagesOverFourMiB(t *testing.T) {
	// gRPC's default limit is 4 MiB a message; a batch of 128 long texts
	// (4.2 MB) and its 128 vectors of 8192 dimensions (4.2 MB) pass both
	// ways because host and plugin raise it to 64 MiB.
	h := newHost(t, testConfig(t, func(c *core.Config) { c.Embedding.Dim = 8192 }))
	texts := make([]string, 128)
	for i := range texts {
		texts[i] = strings.Repeat("kyoto temple budget "+strconv.Itoa(i)+" ", 1600)
	}
	vecs, err := h.Embedder().Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 128 || len(vecs[127]) != 8192 {
		t.Errorf("got %d vectors of %d dimensions, want 128 of 8192", len(vecs), len(vecs[127]))
	}
}
