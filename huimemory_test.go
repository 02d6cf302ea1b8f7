package huimemory_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory"
)

// open opens a memory in a new folder under t.TempDir, with the sample
// conversation, and closes it at the end of the test.
func open(t *testing.T, opts *huimemory.Options) *huimemory.Memory {
	t.Helper()
	mem, err := huimemory.Open(filepath.Join(t.TempDir(), "memory"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	if !opts.ReadOnly {
		if _, err := mem.Append(t.Context(), conversation...); err != nil {
			t.Fatal(err)
		}
	}
	return mem
}

// checkErr reports whether err wraps want (when set) and holds every one
// of msgs.
func checkErr(t *testing.T, err, want error, msgs ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %v", want)
	}
	if want != nil && !errors.Is(err, want) {
		t.Errorf("error %q does not wrap %q", err, want)
	}
	for _, m := range msgs {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error %q lacks %q", err, m)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	held := filepath.Join(dir, "held")
	mem, err := huimemory.Open(held, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()

	for _, tc := range []struct {
		name string
		dir  string
		opts *huimemory.Options
		want error
		msgs []string
	}{
		{"no folder", "", nil, huimemory.ErrInvalid, []string{"opening memory: invalid input: no folder given"}},
		{"folder is a file", file, nil, nil, []string{`opening memory "` + file + `"`, "not a directory"}},
		{"under a file", filepath.Join(file, "sub"), nil, nil, []string{"not a directory"}},
		{"bad namespace", filepath.Join(dir, "m1"), &huimemory.Options{Namespace: "a b"}, huimemory.ErrInvalid, []string{`namespace "a b" may hold only`}},
		{"bad config", filepath.Join(dir, "m2"), &huimemory.Options{Config: &huimemory.Config{
			Retriever: huimemory.RetrieverConfig{Fusion: "best"}}}, huimemory.ErrInvalid, []string{"config: retriever.fusion"}},
		{"unknown embedder", filepath.Join(dir, "m3"), &huimemory.Options{Config: &huimemory.Config{
			Embedding: huimemory.EmbeddingConfig{PluginSpec: huimemory.PluginSpec{Name: "nosuch"}}}}, nil, []string{`"nosuch"`}},
		{"held by another memory", held, nil, huimemory.ErrLocked, []string{`opening memory "` + held + `"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem, err := huimemory.Open(tc.dir, tc.opts)
			if err == nil {
				mem.Close()
			}
			checkErr(t, err, tc.want, tc.msgs...)
		})
	}
}

func TestClosed(t *testing.T) {
	mem := open(t, &huimemory.Options{})
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}
	if err := mem.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	ctx := t.Context()
	for _, tc := range []struct {
		op   string
		call func() error
	}{
		{"recall", func() error { _, err := mem.Recall(ctx, huimemory.Query{Text: "ryokan"}); return err }},
		{"get", func() error { _, err := mem.Get(ctx, "abcdef", 0); return err }},
		{"append", func() error { _, err := mem.Append(ctx, conversation[0]); return err }},
		{"ingest", func() error { _, err := mem.Ingest(ctx, "examples/quickstart/conversation.jsonl"); return err }},
		{"forget", func() error { _, err := mem.Forget(ctx, huimemory.ForgetOptions{Session: "kyoto"}); return err }},
		{"export", func() error { _, err := mem.Export(ctx, &bytes.Buffer{}, huimemory.ExportOptions{}); return err }},
	} {
		t.Run(tc.op, func(t *testing.T) { checkErr(t, tc.call(), huimemory.ErrClosed, tc.op+": engine is closed") })
	}
	if _, err := mem.Tools().Dispatch(ctx, "recall_memory", `{"query":"ryokan"}`); !errors.Is(err, huimemory.ErrClosed) {
		t.Errorf("tool call on a closed memory: %v", err)
	}
}

func TestInvalidInput(t *testing.T) {
	mem := open(t, &huimemory.Options{})
	ctx := t.Context()
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"session":"s","time":"2026-04-01T10:00:00Z","role":"user","text":"ok"}`+"\n"+
		`{"session":"s","time":"2026-04-01T10:01:00Z","role":"user","txet":"typo"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call func() error
		want error
		msgs []string
	}{
		{"recall: negative top_k", func() error { _, err := mem.Recall(ctx, huimemory.Query{Text: "x", TopK: -1}); return err },
			huimemory.ErrInvalid, []string{"top_k -1 is not between 1 and 1000"}},
		{"recall: context too wide", func() error { _, err := mem.Recall(ctx, huimemory.Query{Text: "x", Context: 51}); return err },
			huimemory.ErrInvalid, []string{"context 51 is not between 0 and 50"}},
		{"recall: since after before", func() error {
			_, err := mem.Recall(ctx, huimemory.Query{Text: "x", Since: at(9, 0, 0), Before: at(8, 0, 0)})
			return err
		}, huimemory.ErrInvalid, []string{"is not before"}},
		{"recall: bad filter", func() error {
			_, err := mem.Recall(ctx, huimemory.Query{Text: "x", Filter: "role = 'user' ANDD"})
			return err
		}, huimemory.ErrInvalid, []string{`filter: unexpected "ANDD" at column 15`}},
		{"recall: bad namespace", func() error { _, err := mem.Recall(ctx, huimemory.Query{Text: "x", Namespace: "a b"}); return err },
			huimemory.ErrInvalid, []string{`namespace "a b"`}},
		{"get: unknown id", func() error { _, err := mem.Get(ctx, "zzzzzz", 0); return err },
			huimemory.ErrNotFound, []string{`chunk "zzzzzz"`, "the default namespace"}},
		{"get: malformed id", func() error { _, err := mem.Get(ctx, "no!", 0); return err },
			huimemory.ErrNotFound, []string{`chunk "no!"`, "ids are"}},
		{"get: window too wide", func() error { _, err := mem.Get(ctx, "zzzzzz", 99); return err },
			huimemory.ErrInvalid, []string{"context 99"}},
		{"append: no session", func() error {
			_, err := mem.Append(ctx, conversation[0], huimemory.Message{Time: at(1, 0, 0), Role: huimemory.RoleUser, Text: "x"})
			return err
		}, huimemory.ErrInvalid, []string{"message 2: invalid input: missing session"}},
		{"ingest: missing file", func() error { _, err := mem.Ingest(ctx, filepath.Join(t.TempDir(), "nope.jsonl")); return err },
			os.ErrNotExist, []string{"reading ", "nope.jsonl"}},
		{"ingest: a folder", func() error { _, err := mem.Ingest(ctx, t.TempDir()); return err },
			nil, []string{"is a directory"}},
		{"ingest: bad line", func() error { _, err := mem.Ingest(ctx, bad); return err },
			huimemory.ErrInvalid, []string{bad + ":2:", `"txet"`}},
		{"forget: nothing selected", func() error { _, err := mem.Forget(ctx, huimemory.ForgetOptions{}); return err },
			huimemory.ErrInvalid, []string{"exactly one of"}},
		{"forget: unknown session", func() error { _, err := mem.Forget(ctx, huimemory.ForgetOptions{Session: "nope"}); return err },
			huimemory.ErrNotFound, []string{`"nope"`}},
		{"export: namespace and all", func() error {
			_, err := mem.Export(ctx, &bytes.Buffer{}, huimemory.ExportOptions{Namespace: "x", All: true})
			return err
		}, huimemory.ErrInvalid, []string{"not both"}},
		{"export: unknown session", func() error {
			_, err := mem.Export(ctx, &bytes.Buffer{}, huimemory.ExportOptions{Session: "nope"})
			return err
		}, huimemory.ErrNotFound, []string{`export of session "nope"`}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkErr(t, tc.call(), tc.want, tc.msgs...) })
	}
	// None of it changed the memory.
	var out bytes.Buffer
	if n, err := mem.Export(ctx, &out, huimemory.ExportOptions{}); err != nil || n != len(conversation) {
		t.Errorf("export after bad input: %d messages, %v; want %d", n, err, len(conversation))
	}
}

func TestReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	mem, err := huimemory.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Append(t.Context(), conversation...); err != nil {
		t.Fatal(err)
	}
	mem.Close()
	mem, err = huimemory.Open(dir, &huimemory.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	ctx := t.Context()
	for _, tc := range []struct {
		op   string
		call func() error
	}{
		{"append", func() error { _, err := mem.Append(ctx, conversation[0]); return err }},
		{"ingest", func() error { _, err := mem.Ingest(ctx, "examples/quickstart/conversation.jsonl"); return err }},
		{"forget", func() error { _, err := mem.Forget(ctx, huimemory.ForgetOptions{Session: "kyoto"}); return err }},
	} {
		t.Run(tc.op, func(t *testing.T) { checkErr(t, tc.call(), huimemory.ErrReadOnly, tc.op+": memory is read-only") })
	}
	// Reads, and a forget's dry run, still work.
	if r, err := mem.Forget(ctx, huimemory.ForgetOptions{Session: "kyoto", DryRun: true}); err != nil || len(r.Messages) != 6 {
		t.Errorf("dry run: %d messages, %v", len(r.Messages), err)
	}
	if res, err := mem.Recall(ctx, huimemory.Query{Text: "ryokan", TopK: 1}); err != nil || len(res.Hits) != 1 {
		t.Errorf("recall: %v, %v", res, err)
	}
	var names []string
	for _, tool := range mem.Tools().Tools() {
		names = append(names, tool.Name)
	}
	want := []string{"recall_memory", "recall_by_id", "list_sessions", "memory_stats", "resolve_time", "export_session"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("read-only tools (-want +got):\n%s", diff)
	}
}

// TestNamespace checks that Options.Namespace is the namespace of every
// call that names none, and of nothing else.
func TestNamespace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	mem, err := huimemory.Open(dir, &huimemory.Options{Namespace: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	msgs := append([]huimemory.Message(nil), conversation[:2]...)
	if _, err := mem.Append(ctx, msgs...); err != nil {
		t.Fatal(err)
	}
	if msgs[0].Namespace != "" {
		t.Errorf("Append changed its argument: namespace %q", msgs[0].Namespace)
	}
	res, err := mem.Recall(ctx, huimemory.Query{Text: "quiet temples", TopK: 1})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Namespace != "alice" {
		t.Fatalf("recall in alice: %+v, %v", res, err)
	}
	if _, err := mem.Get(ctx, res.Hits[0].ID, 0); err != nil {
		t.Errorf("get in alice: %v", err)
	}
	var out bytes.Buffer
	if _, err := mem.Export(ctx, &out, huimemory.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `{"session":"kyoto","time":"2026-04-01T10:00:00+09:00","role":"user","speaker":"Alice","text":"I prefer quiet temples to crowded shrines.","namespace":"alice"}` + "\n" +
		`{"session":"kyoto","time":"2026-04-01T10:01:00+09:00","role":"assistant","text":"Then start at Honen-in early in the morning, before the tour groups.","namespace":"alice"}` + "\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("export of alice (-want +got):\n%s", diff)
	}
	id := res.Hits[0].ID
	mem.Close()

	// The default namespace holds none of it.
	mem, err = huimemory.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if res, err := mem.Recall(ctx, huimemory.Query{Text: "quiet temples"}); err != nil || len(res.Hits) != 0 {
		t.Errorf("recall in the default namespace: %+v, %v", res, err)
	}
	if _, err := mem.Get(ctx, id, 0); !errors.Is(err, huimemory.ErrNotFound) {
		t.Errorf("get of alice's chunk in the default namespace: %v", err)
	}
	if r, err := mem.Forget(ctx, huimemory.ForgetOptions{AllNamespace: true, DryRun: true}); err != nil || len(r.Messages) != 0 {
		t.Errorf("forget in the default namespace: %d messages, %v", len(r.Messages), err)
	}
}

// TestConcurrent runs recalls, gets and appends side by side (go test
// -race checks them).
func TestConcurrent(t *testing.T) {
	mem := open(t, &huimemory.Options{})
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 10 {
		wg.Go(func() {
			_, err := mem.Append(ctx, huimemory.Message{Session: "later", Time: at(10, 9, i), Role: huimemory.RoleUser, Text: "note " + string(rune('a'+i))})
			errs <- err
		})
		wg.Go(func() {
			res, err := mem.Recall(ctx, huimemory.Query{Text: "ryokan", TopK: 1})
			if err == nil {
				_, err = mem.Get(ctx, res.Hits[0].ID, 1)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	var out bytes.Buffer
	if n, err := mem.Export(ctx, &out, huimemory.ExportOptions{Session: "later"}); err != nil || n != 10 {
		t.Errorf("export: %d messages, %v; want 10", n, err)
	}
}

// TestShared opens one folder twice with shared access, as two processes
// would, and checks that each sees the other's writes.
func TestShared(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	opts := &huimemory.Options{Shared: true, Config: &huimemory.Config{Storage: huimemory.StorageConfig{LockWait: 5 * time.Second}}}
	a, err := huimemory.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := huimemory.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := a.Append(t.Context(), conversation[2:4]...); err != nil {
		t.Fatal(err)
	}
	res, err := b.Recall(t.Context(), huimemory.Query{Text: "ryokan", TopK: 1})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("recall through the other memory: %+v, %v", res, err)
	}
}
