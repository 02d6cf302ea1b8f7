package host

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/go-plugin"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/builtin"
	"github.com/huimemory/huimemory/plugins/chunker"
	"github.com/huimemory/huimemory/plugins/embedder"
	"github.com/huimemory/huimemory/plugins/embedder/uselite"
	"github.com/huimemory/huimemory/plugins/extractor"
	"github.com/huimemory/huimemory/plugins/internal/contract"
)

// Every built-in passes the contract suite three ways: called directly,
// over in-process gRPC (plugin.TestPluginGRPCConn), and as a real
// subprocess of the huimem binary, configured from a core.Config.

func TestBuiltinEmbedders(t *testing.T) {
	for _, name := range builtin.Names(KindEmbedder) {
		t.Run(name, func(t *testing.T) {
			options := embedderOptions(t, name)
			f, _ := builtin.Embedder(name)
			direct, err := f(t.Context(), options)
			if err != nil {
				t.Fatal(err)
			}
			want, err := direct.Embed(t.Context(), contract.Texts)
			if err != nil {
				t.Fatal(err)
			}
			same := func(t *testing.T, e core.Embedder) {
				got, err := e.Embed(t.Context(), contract.Texts)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("vectors differ from the direct call's (-direct +got):\n%s", d)
				}
			}
			t.Run("direct", func(t *testing.T) { contract.Embedder(t, direct) })
			t.Run("grpc", func(t *testing.T) {
				c := dispense(t, KindEmbedder, &embedder.Plugin{Config: embedder.ServeConfig{Factory: f}}).(*embedder.Client)
				if err := c.Configure(t.Context(), options); err != nil {
					t.Fatal(err)
				}
				contract.Embedder(t, c)
				same(t, c)
			})
			t.Run("process", func(t *testing.T) {
				h := newHost(t, testConfig(t, func(c *core.Config) {
					c.Embedding.PluginSpec = core.PluginSpec{Name: name, Options: options}
				}))
				if _, ok := h.Embedder().(*embedderProc); !ok {
					t.Fatalf("the embedder is a %T, not a process", h.Embedder())
				}
				contract.Embedder(t, h.Embedder())
				same(t, h.Embedder())
			})
		})
	}
}

func TestBuiltinChunkers(t *testing.T) {
	for _, name := range builtin.Names(KindChunker) {
		t.Run(name, func(t *testing.T) {
			options := map[string]string{}
			if name == "window" {
				options["size"] = "300"
			}
			f, _ := builtin.Chunker(name)
			direct, err := f(t.Context(), options)
			if err != nil {
				t.Fatal(err)
			}
			want, err := direct.Chunk(t.Context(), contract.Session())
			if err != nil {
				t.Fatal(err)
			}
			same := func(t *testing.T, c core.Chunker) {
				got, err := c.Chunk(t.Context(), contract.Session())
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("spans differ from the direct call's (-direct +got):\n%s", d)
				}
			}
			t.Run("direct", func(t *testing.T) { contract.Chunker(t, direct) })
			t.Run("grpc", func(t *testing.T) {
				c := dispense(t, KindChunker, &chunker.Plugin{Config: chunker.ServeConfig{Factory: f}}).(*chunker.Client)
				if err := c.Configure(t.Context(), options); err != nil {
					t.Fatal(err)
				}
				contract.Chunker(t, c)
				same(t, c)
			})
			t.Run("process", func(t *testing.T) {
				h := newHost(t, testConfig(t, func(c *core.Config) {
					c.Chunker = core.PluginSpec{Name: name, Options: options}
				}))
				if _, ok := h.Chunker().(*chunkerProc); !ok {
					t.Fatalf("the chunker is a %T, not a process", h.Chunker())
				}
				contract.Chunker(t, h.Chunker())
				same(t, h.Chunker())
			})
		})
	}
}

func TestBuiltinExtractors(t *testing.T) {
	names := builtin.Names(KindExtractor)
	if len(names) == 0 {
		t.Fatal("no built-in extractors are registered")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			options := extractorOptions(t, name)
			f, _ := builtin.Extractor(name)
			direct, err := f(t.Context(), options)
			if err != nil {
				t.Fatal(err)
			}
			var want [][]core.Memory
			for _, c := range contract.Chunks() {
				mems, err := direct.Extract(t.Context(), c)
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, mems)
			}
			same := func(t *testing.T, x core.Extractor) {
				for i, c := range contract.Chunks() {
					got, err := x.Extract(t.Context(), c)
					if err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(want[i], got, cmpopts.EquateEmpty()); d != "" {
						t.Errorf("chunk %d: memories differ from the direct call's (-direct +got):\n%s", i, d)
					}
				}
			}
			t.Run("direct", func(t *testing.T) { contract.Extractor(t, direct) })
			t.Run("grpc", func(t *testing.T) {
				x := dispense(t, KindExtractor, &extractor.Plugin{Config: extractor.ServeConfig{Factory: f}}).(*extractor.Client)
				if err := x.Configure(t.Context(), options); err != nil {
					t.Fatal(err)
				}
				contract.Extractor(t, x)
				same(t, x)
			})
			t.Run("process", func(t *testing.T) {
				h := newHost(t, testConfig(t, func(c *core.Config) {
					c.Extractors = []core.PluginSpec{{Name: name, Options: options}}
				}))
				if _, ok := h.Extractors()[0].(*extractorProc); !ok {
					t.Fatalf("the extractor is a %T, not a process", h.Extractors()[0])
				}
				contract.Extractor(t, h.Extractors()[0])
				same(t, h.Extractors()[0])
			})
		})
	}
}

// dispense connects to p over in-process gRPC and returns the kind's
// client.
func dispense(t *testing.T, kind string, p plugin.Plugin) any {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{kind: p})
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense(kind)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// embedderOptions returns the options a built-in embedder is tested with.
func embedderOptions(t *testing.T, name string) map[string]string {
	t.Helper()
	switch name {
	case "hash":
		return map[string]string{"dim": "256"}
	case "use-lite":
		dir := uselite.DefaultDir()
		if _, err := os.Stat(filepath.Join(dir, "model.json")); err != nil {
			msg := fmt.Sprintf("USE-lite weights not found in %s; run scripts/fetch-models.sh", dir)
			if os.Getenv("HUIMEM_REQUIRE_MODELS") == "1" {
				t.Fatal(msg)
			}
			t.Skip(msg + " (HUIMEM_REQUIRE_MODELS=1 makes this a failure)")
		}
		return map[string]string{"model_dir": dir}
	case "openai":
		// The key travels by environment variable name, so the plugin
		// process reads it from its own (inherited) environment.
		t.Setenv("HUIMEM_TEST_OPENAI_KEY", "sk-test")
		srv := fakeOpenAI(t, "sk-test", 16)
		return map[string]string{"base_url": srv.URL, "model": "fake-embed", "dim": "16",
			"api_key_env": "HUIMEM_TEST_OPENAI_KEY", "max_retries": "-1"}
	}
	t.Fatalf("no test options for the built-in embedder %q: add them to embedderOptions", name)
	return nil
}

// fakeOpenAI serves the OpenAI embeddings API on the loopback interface,
// with deterministic vectors of dim dimensions, to requests that carry key.
func fakeOpenAI(t *testing.T, key string, dim int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/embeddings") {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"error":{"message":"bad API key"}}`, http.StatusUnauthorized)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var resp struct {
			Data []item `json:"data"`
		}
		for i, text := range req.Input {
			v := make([]float32, dim)
			for j := range v {
				h := fnv.New32a()
				fmt.Fprintf(h, "%d|%s", j, text)
				v[j] = float32(h.Sum32()%2000)/1000 - 1
			}
			resp.Data = append(resp.Data, item{Index: i, Embedding: v})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// extractorOptions returns the options a built-in extractor is tested
// with.
func extractorOptions(t *testing.T, name string) map[string]string {
	t.Helper()
	switch name {
	case "general", "topic":
		return nil
	case "llm":
		return map[string]string{"base_url": fakeChat(t).URL, "model": "fake-chat", "max_retries": "-1"}
	}
	t.Fatalf("no test options for the built-in extractor %q: add them to extractorOptions", name)
	return nil
}

// fakeChat serves the OpenAI chat completions API on the loopback
// interface. Its answer is deterministic: one decision whose fact is the
// first line of the turn in the user message.
func fakeChat(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		_, turn, _ := strings.Cut(req.Messages[len(req.Messages)-1].Content, "\nTurn:\n")
		first, _, _ := strings.Cut(turn, "\n")
		if r := []rune(strings.TrimSpace(first)); len(r) > 100 {
			first = string(r[:100])
		}
		answer, _ := json.Marshal(map[string]any{"memories": []any{map[string]any{
			"type": "decision", "facts": []string{first + "."}, "entities": []string{}, "topic": "contract"}}})
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-contract", "object": "chat.completion", "model": "fake-chat",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": string(answer)}}},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}
