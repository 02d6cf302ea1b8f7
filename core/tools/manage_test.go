package tools_test

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/tools"
)

// sampleSessions counts the sample's messages per session, read from the
// file itself.
func sampleSessions(t *testing.T) (map[string]int, []string) {
	t.Helper()
	f, err := os.Open(sampleFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[string]int{}
	var texts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m struct{ Session, Text string }
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		counts[m.Session]++
		texts = append(texts, m.Text)
	}
	return counts, texts
}

func manageDispatcher(t *testing.T) (*engine.Engine, *tools.Dispatcher) {
	mem := newMemory(t)
	return mem, newDispatcher(mem, tools.Options{Manage: true, Forget: true})
}

func TestToolsListSessions(t *testing.T) {
	counts, _ := sampleSessions(t)
	_, d := manageDispatcher(t)
	for _, tc := range []struct {
		name       string
		args       string
		total, got int
	}{
		{"all", `{}`, len(counts), len(counts)},
		{"limit", `{"limit":2}`, len(counts), 2},
		{"since a date before all", `{"since":"2026-01-01"}`, len(counts), len(counts)},
		{"since a phrase with nothing after it", `{"since":"上周"}`, 0, 0},
		{"before all", `{"before":"2026-01-01"}`, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := d.Call(t.Context(), tools.ListSessions, []byte(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			l := res.Data.(*tools.SessionList)
			if l.Total != tc.total || len(l.Sessions) != tc.got {
				t.Fatalf("total %d, listed %d; want %d, %d\n%s", l.Total, len(l.Sessions), tc.total, tc.got, res.Text)
			}
			for i, s := range l.Sessions {
				if counts[s.Session] != s.Messages {
					t.Errorf("session %s: %d messages, the sample has %d", s.Session, s.Messages, counts[s.Session])
				}
				if i > 0 && s.Last.After(l.Sessions[i-1].Last) {
					t.Errorf("not newest first: %s after %s", s.Session, l.Sessions[i-1].Session)
				}
				if !strings.Contains(res.Text, "- "+s.Session+": ") {
					t.Errorf("text does not list %s:\n%s", s.Session, res.Text)
				}
			}
			if leaked(res.Text) || strings.Contains(res.Text, "bob-secret") {
				t.Errorf("another namespace's session is listed:\n%s", res.Text)
			}
			if tc.total == 0 && !strings.HasPrefix(res.Text, "No sessions in namespace alice match.") {
				t.Errorf("empty list text:\n%s", res.Text)
			}
		})
	}
}

func TestToolsMemoryStats(t *testing.T) {
	counts, texts := sampleSessions(t)
	_, d := manageDispatcher(t)
	res, err := d.Call(t.Context(), tools.MemoryStats, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := res.Data.(*tools.NamespaceStats)
	if st.Namespace != "alice" || st.Sessions != len(counts) || st.Messages != len(texts) || st.Chunks == 0 || st.Embedder == "" {
		t.Errorf("stats %+v; want alice, %d sessions, %d messages", st, len(counts), len(texts))
	}
	if !st.First.Before(st.Last) {
		t.Errorf("first %v is not before last %v", st.First, st.Last)
	}
	if !strings.Contains(res.Text, "holds 22 messages in 5 sessions") {
		t.Errorf("text:\n%s", res.Text)
	}
	// An empty namespace is not an error.
	empty := newDispatcher(newMemory(t), tools.Options{Namespace: "carol", Manage: true})
	text, err := empty.Dispatch(t.Context(), tools.MemoryStats, `{}`)
	if err != nil || !strings.HasPrefix(text, "Namespace carol holds nothing yet") {
		t.Errorf("empty namespace: %v\n%s", err, text)
	}
}

func TestToolsResolveTime(t *testing.T) {
	_, d := manageDispatcher(t)
	for _, tc := range []struct {
		args  string
		want  tools.TimeRange
		fuzzy bool
	}{
		// testNow is Thursday 2026-12-10 in UTC+8.
		{`{"phrase":"上周三下午"}`, tools.TimeRange{Start: "2026-12-02T12:00:00+08:00", End: "2026-12-02T18:00:00+08:00", Granularity: "hour", Text: "上周三下午"}, false},
		{`{"phrase":"what did we decide last week?"}`, tools.TimeRange{Start: "2026-11-30T00:00:00+08:00", End: "2026-12-07T00:00:00+08:00", Granularity: "week", Text: "last week"}, false},
		{`{"phrase":"yesterday","now":"2026-04-08T09:00:00+08:00"}`, tools.TimeRange{Start: "2026-04-07T00:00:00+08:00", End: "2026-04-08T00:00:00+08:00", Granularity: "day", Text: "yesterday"}, false},
	} {
		t.Run(tc.args, func(t *testing.T) {
			res, err := d.Call(t.Context(), tools.ResolveTime, []byte(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tc.want, res.Data.(*tools.TimeRange)); diff != "" {
				t.Errorf("range (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(res.Text, `"`+tc.want.Text+`" means `) {
				t.Errorf("text:\n%s", res.Text)
			}
		})
	}
	res, err := d.Call(t.Context(), tools.ResolveTime, []byte(`{"phrase":"前段时间"}`))
	if err != nil {
		t.Fatal(err)
	}
	if tr := res.Data.(*tools.TimeRange); !tr.Fuzzy || !strings.Contains(res.Text, "one week at a time, newest first") {
		t.Errorf("a vague phrase: %+v\n%s", tr, res.Text)
	}
}

func TestToolsExportSession(t *testing.T) {
	counts, texts := sampleSessions(t)
	mem, d := manageDispatcher(t)
	ctx := t.Context()

	res, err := d.Call(ctx, tools.ExportSession, []byte(`{"session":"local-llm"}`))
	if err != nil {
		t.Fatal(err)
	}
	x := res.Data.(*tools.SessionExport)
	if x.Format != tools.ExportTurns || x.Messages != counts["local-llm"] || len(x.Turns) == 0 {
		t.Fatalf("turns export: format %s, %d messages in %d turns", x.Format, x.Messages, len(x.Turns))
	}
	if n := strings.Count(res.Text, "[id:"); n != len(x.Turns) {
		t.Errorf("%d anchors for %d turns:\n%s", n, len(x.Turns), res.Text)
	}
	// The turns walk: each next is the following turn's id.
	for i := 1; i < len(x.Turns); i++ {
		if x.Turns[i-1].Next != x.Turns[i].ID || x.Turns[i].Prev != x.Turns[i-1].ID {
			t.Errorf("turn %d is not linked to turn %d", i, i-1)
		}
	}
	// Each line of each message is there verbatim, after its line number.
	for _, text := range texts[:counts["local-llm"]] {
		for _, line := range strings.Split(text, "\n") {
			if line != "" && !strings.Contains(res.Text, " | "+line+"\n") {
				t.Errorf("the export lacks the line %q verbatim", line)
			}
		}
	}

	res, err = d.Call(ctx, tools.ExportSession, []byte(`{"session":"local-llm","format":"jsonl"}`))
	if err != nil {
		t.Fatal(err)
	}
	x = res.Data.(*tools.SessionExport)
	lines := strings.Split(strings.TrimSuffix(x.JSONL, "\n"), "\n")
	if len(lines) != counts["local-llm"] || x.Messages != len(lines) {
		t.Fatalf("jsonl export: %d lines, %d messages; want %d", len(lines), x.Messages, counts["local-llm"])
	}
	var whole strings.Builder
	if _, err := mem.Export(ctx, &whole, engine.ExportOptions{Namespace: "alice"}); err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if !strings.Contains(whole.String(), l+"\n") {
			t.Errorf("the session's line is not a line of the namespace's export: %s", l)
		}
	}

	for _, tc := range []struct{ args, code, want string }{
		{`{"session":"nope"}`, tools.CodeNotFound, `session "nope"`},
		{`{"session":"bob-secret"}`, tools.CodeNotFound, `session "bob-secret"`},
		{`{"session":"bob-secret","format":"jsonl"}`, tools.CodeNotFound, `session "bob-secret"`},
		{`{"session":"local-llm","format":"pdf"}`, tools.CodeInvalidArguments, `format "pdf" is not turns or jsonl`},
		{`{"session":""}`, tools.CodeInvalidArguments, "session is empty"},
		{`{"session":"bob-secret","namespace":"bob"}`, tools.CodeInvalidArguments, `unknown argument "namespace"`},
	} {
		text, err := d.Dispatch(ctx, tools.ExportSession, tc.args)
		if code(err) != tc.code || !strings.Contains(text, tc.want) || leaked(text) {
			t.Errorf("%s: %s %q, want %s %q", tc.args, code(err), text, tc.code, tc.want)
		}
	}
}

func TestToolsForgetMemory(t *testing.T) {
	counts, _ := sampleSessions(t)
	mem, d := manageDispatcher(t)
	ctx := t.Context()
	stats := func() *tools.NamespaceStats {
		t.Helper()
		st, err := d.Stats(ctx, tools.StatsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	before := stats()

	res, err := d.Call(ctx, tools.ForgetMemory, []byte(`{"session":"kyoto-trip","dry_run":true}`))
	if err != nil {
		t.Fatal(err)
	}
	fr := res.Data.(*engine.ForgetResult)
	if !fr.DryRun || len(fr.Messages) != counts["kyoto-trip"] || !strings.HasPrefix(res.Text, "Dry run: forgetting would remove 4 messages from 1 session.") {
		t.Fatalf("dry run: %+v\n%s", fr, res.Text)
	}
	if diff := cmp.Diff(before, stats()); diff != "" {
		t.Fatalf("a dry run changed memory (-before +after):\n%s", diff)
	}

	text, err := d.Dispatch(ctx, tools.ForgetMemory, `{"session":"kyoto-trip"}`)
	if err != nil || !strings.HasPrefix(text, "Forgot 4 messages from 1 session for good") {
		t.Fatalf("forget: %v\n%s", err, text)
	}
	after := stats()
	if after.Sessions != before.Sessions-1 || after.Messages != before.Messages-counts["kyoto-trip"] {
		t.Errorf("after forgetting: %+v; before %+v", after, before)
	}
	if text, err := d.Dispatch(ctx, tools.ExportSession, `{"session":"kyoto-trip"}`); code(err) != tools.CodeNotFound {
		t.Errorf("the forgotten session is still there: %v\n%s", err, text)
	}
	if text, err := d.Dispatch(ctx, tools.ForgetMemory, `{"session":"kyoto-trip"}`); code(err) != tools.CodeNotFound || !strings.Contains(text, "list_sessions shows") {
		t.Errorf("forgetting again: %v\n%s", err, text)
	}
	if text, err := d.Dispatch(ctx, tools.ForgetMemory, `{"filter_expr":"speaker = 'Nobody'"}`); err != nil || !strings.HasPrefix(text, "Nothing matches") {
		t.Errorf("a filter that matches nothing: %v\n%s", err, text)
	}

	for _, tc := range []struct{ args, code, want string }{
		{`{}`, tools.CodeInvalidArguments, "exactly one of"},
		{`{"session":"deploy-bug","id":"abcdef"}`, tools.CodeInvalidArguments, "exactly one of"},
		{`{"filter_expr":"role = "}`, tools.CodeInvalidArguments, "filter"},
		{`{"session":"bob-secret","namespace":"bob"}`, tools.CodeInvalidArguments, `unknown argument "namespace"`},
	} {
		text, err := d.Dispatch(ctx, tools.ForgetMemory, tc.args)
		if code(err) != tc.code || !strings.Contains(text, tc.want) {
			t.Errorf("%s: %s %q, want %s %q", tc.args, code(err), text, tc.code, tc.want)
		}
	}
	// A dispatcher that may name namespaces still cannot reach one it is
	// not allowed: the same rule as POST /v1/forget.
	bound := newDispatcher(mem, tools.Options{Forget: true})
	if _, err := bound.Forget(ctx, tools.ForgetRequest{Session: "bob-secret", Namespace: "bob"}); code(err) != tools.CodeForbidden {
		t.Errorf("forgetting in another namespace: %v", err)
	}
	bob := newDispatcher(mem, tools.Options{Namespace: "bob", Manage: true})
	if st, err := bob.Stats(ctx, tools.StatsRequest{}); err != nil || st.Messages != 2 {
		t.Errorf("bob's memory after alice's forgets: %+v, %v", st, err)
	}
}

func TestToolsManageGating(t *testing.T) {
	d := newDispatcher(newMemory(t), tools.Options{})
	for _, name := range []string{tools.ListSessions, tools.MemoryStats, tools.ResolveTime, tools.ExportSession, tools.ForgetMemory} {
		if _, err := d.Call(t.Context(), name, []byte(`{}`)); code(err) != tools.CodeUnknownTool {
			t.Errorf("%s without Manage/Forget: %v", name, err)
		}
	}
	// Forget alone serves forget_memory and nothing of Manage.
	f := newDispatcher(newMemory(t), tools.Options{Forget: true})
	if _, err := f.Call(t.Context(), tools.ForgetMemory, []byte(`{"session":"deploy-bug","dry_run":true}`)); err != nil {
		t.Errorf("forget_memory with Forget: %v", err)
	}
	if _, err := f.Call(t.Context(), tools.MemoryStats, nil); code(err) != tools.CodeUnknownTool {
		t.Errorf("memory_stats with only Forget: %v", err)
	}
}
