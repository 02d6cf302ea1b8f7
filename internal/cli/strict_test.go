package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/internal/render"
)

// onUTCMachine makes the machine's zone UTC for the rest of the test, as
// on a server or in CI. The tests of this package do not run in parallel.
func onUTCMachine(t *testing.T) {
	t.Helper()
	old := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = old })
}

// writeConfig writes home/config.yaml.
func writeConfig(t *testing.T, home, yaml string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
}

// oneLineErr checks that a command failed with code and one stderr line
// holding want.
func oneLineErr(t *testing.T, what string, errs string, code, wantCode int, want string) {
	t.Helper()
	if code != wantCode || !strings.Contains(errs, want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("%s: code %d, stderr %q; want %d and one line with %q", what, code, errs, wantCode, want)
	}
}

// The README's example, run on a UTC machine: the sample conversation
// happened in +08:00, so "上周三下午" must be read there, which --tz or
// time.zone says. The text output says which range it searched.
func TestReadmeTimeExampleOnUTCMachine(t *testing.T) {
	onUTCMachine(t)
	home := ingested(t)
	query := "上周三下午部署的时候出了什么问题"
	const shanghai = `searched "上周三下午": 2026-11-18 12:00 .. 18:00 (UTC+08:00)`

	out, errs, code := cli(t, home, "recall", query, "--now", "2026-11-29", "--tz", "Asia/Shanghai")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	if first, _, _ := strings.Cut(out, "\n"); first != shanghai {
		t.Errorf("first line %q, want %q", first, shanghai)
	}
	if !strings.Contains(out, "chat_deploy-bug.md:L9-L13") || !strings.Contains(out, "2026-11-18 Wed 15:20:00") {
		t.Errorf("the 15:20 +08:00 message was not found:\n%s", out)
	}

	// The same with time.zone in the home's config instead of --tz.
	writeConfig(t, home, "time:\n  zone: Asia/Shanghai\n")
	out, _, _ = cli(t, home, "recall", query, "--now", "2026-11-29")
	if !strings.HasPrefix(out, shanghai+"\n") || !strings.Contains(out, "chat_deploy-bug.md:L9-L13") {
		t.Errorf("with time.zone set:\n%s", out)
	}

	// Without a zone, the machine's (UTC) is used, and the output says so:
	// the afternoon in UTC is the evening in +08:00. With strict time the
	// window holds nothing, and stays empty.
	const utc = `searched "上周三下午": 2026-11-18 12:00 .. 18:00 (UTC+00:00)`
	writeConfig(t, home, "retriever:\n  strict_time: true\n")
	out, _, _ = cli(t, home, "recall", query, "--now", "2026-11-29")
	if !strings.HasPrefix(out, utc+"\n") {
		t.Errorf("in UTC, output does not start with %q:\n%s", utc, out)
	}
	if strings.Contains(out, "chat_deploy-bug.md:L9-L13") {
		t.Errorf("in UTC, the +08:00 afternoon message should be outside the window:\n%s", out)
	}
	// By default recall then widens to other times, and says so.
	os.Remove(filepath.Join(home, "config.yaml"))
	out, _, _ = cli(t, home, "recall", query, "--now", "2026-11-29")
	if want := utc + "; nothing relevant there, so widened to other times\n"; !strings.HasPrefix(out, want) || !strings.Contains(out, "chat_deploy-bug.md:L9-L13") {
		t.Errorf("in UTC, want %q and the deploy bug from outside the window:\n%s", want, out)
	}

	// A vague phrase scans weeks, and says which.
	out, _, _ = cli(t, home, "recall", "--tz", "Asia/Shanghai", "--now", "2026-11-29", "最近聊过的书")
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, `searched "最近": `) || !strings.Contains(first, "weeks, newest first: 2026-W48 .. ") {
		t.Errorf("scan line %q", first)
	}
	// A query without a time phrase prints no such line.
	out, _, _ = cli(t, home, "recall", "--top-k", "1", "Kyoto ryokan")
	if !strings.HasPrefix(out, "[id:") {
		t.Errorf("plain recall starts with %q", strings.SplitN(out, "\n", 2)[0])
	}
}

func TestTimeZoneSettingAndFlag(t *testing.T) {
	onUTCMachine(t)
	home := t.TempDir()
	for _, tt := range []struct {
		name   string
		config string
		env    string
		args   []string
		want   string
	}{
		{"machine zone", "", "", []string{"time", "--json", "--now", "2026-11-29", "上周三下午"},
			`{"start":"2026-11-18T12:00:00Z","end":"2026-11-18T18:00:00Z","granularity":"hour","fuzzy":false,"text":"上周三下午"}`},
		{"--tz", "", "", []string{"time", "--json", "--tz", "Asia/Shanghai", "--now", "2026-11-29", "上周三下午"},
			`{"start":"2026-11-18T12:00:00+08:00","end":"2026-11-18T18:00:00+08:00","granularity":"hour","fuzzy":false,"text":"上周三下午"}`},
		{"time.zone", "time: {zone: America/New_York}\n", "", []string{"time", "--json", "--now", "2026-11-29", "yesterday"},
			`{"start":"2026-11-28T00:00:00-05:00","end":"2026-11-29T00:00:00-05:00","granularity":"day","fuzzy":false,"text":"yesterday"}`},
		{"HUIMEM_TIME_ZONE", "", "Asia/Tokyo", []string{"time", "--json", "--now", "2026-11-29", "yesterday"},
			`{"start":"2026-11-28T00:00:00+09:00","end":"2026-11-29T00:00:00+09:00","granularity":"day","fuzzy":false,"text":"yesterday"}`},
		{"--tz over time.zone", "time: {zone: America/New_York}\n", "", []string{"time", "--json", "--tz", "UTC", "--now", "2026-11-29", "yesterday"},
			`{"start":"2026-11-28T00:00:00Z","end":"2026-11-29T00:00:00Z","granularity":"day","fuzzy":false,"text":"yesterday"}`},
		// A --now with an offset is moved into the zone set.
		{"--now with offset", "", "", []string{"time", "--json", "--tz", "Asia/Shanghai", "--now", "2026-11-28T20:00:00Z", "today"},
			`{"start":"2026-11-29T00:00:00+08:00","end":"2026-11-30T00:00:00+08:00","granularity":"day","fuzzy":false,"text":"today"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(filepath.Join(home, "config.yaml"))
			if tt.config != "" {
				writeConfig(t, home, tt.config)
			}
			if tt.env != "" {
				t.Setenv("HUIMEM_TIME_ZONE", tt.env)
			}
			out, errs, code := cli(t, home, tt.args...)
			if code != 0 || strings.TrimSpace(out) != tt.want {
				t.Errorf("code %d, stderr %q\n got %s\nwant %s", code, errs, strings.TrimSpace(out), tt.want)
			}
		})
	}
}

func TestTimeZoneErrors(t *testing.T) {
	home := ingested(t)
	_, errs, code := cli(t, home, "recall", "--tz", "Mars/Olympus", "q")
	oneLineErr(t, "--tz", errs, code, exitUsage, `--tz "Mars/Olympus": not an IANA time zone name`)
	_, errs, code = cli(t, home, "time", "--tz", "CST+8", "today")
	oneLineErr(t, "time --tz", errs, code, exitUsage, `--tz "CST+8"`)

	writeConfig(t, home, "time:\n  zone: Asia/Shanghia\n")
	_, errs, code = cli(t, home, "stats")
	oneLineErr(t, "time.zone", errs, code, exitUsage, `config: time.zone: "Asia/Shanghia" is not an IANA time zone name`)
	os.Remove(filepath.Join(home, "config.yaml"))

	t.Setenv("HUIMEM_TIME_ZONE", "Nowhere")
	_, errs, code = cli(t, home, "config")
	oneLineErr(t, "HUIMEM_TIME_ZONE", errs, code, exitUsage, `config: time.zone: "Nowhere"`)
}

// add reads --time in the zone, and get shows times in the zone set.
func TestAddAndGetInZone(t *testing.T) {
	onUTCMachine(t)
	home := t.TempDir()
	out, errs, code := cli(t, home, "add", "--tz", "Asia/Shanghai", "--session", "tz", "--role", "user", "--time", "2026-04-06 10:00", "--json", "the meeting moved to Thursday")
	if code != 0 {
		t.Fatalf("add: %d %s", code, errs)
	}
	out, _, _ = cli(t, home, "recall", "--json", "meeting moved")
	var res render.JSONResults
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Results) != 1 {
		t.Fatalf("recall: %v\n%s", err, out)
	}
	id := res.Results[0].ID
	if got := res.Results[0].Time.Format(time.RFC3339); got != "2026-04-06T10:00:00+08:00" {
		t.Errorf("stored time %s, want 10:00 in +08:00", got)
	}
	for _, tt := range []struct{ tz, want string }{
		{"", "2026-04-06 Mon 10:00:00"}, // as stored
		{"UTC", "2026-04-06 Mon 02:00:00"},
		{"America/New_York", "2026-04-05 Sun 22:00:00"},
	} {
		args := []string{"get", id}
		if tt.tz != "" {
			args = append(args, "--tz", tt.tz)
		}
		out, errs, code := cli(t, home, args...)
		if code != 0 || !strings.Contains(out, "| 话题: - | "+tt.want+"\n") {
			t.Errorf("get --tz %q: code %d %s\n%s", tt.tz, code, errs, out)
		}
	}
}

// Only init, ingest and add (and the commands that fill a scratch home)
// may create a home; the others refuse a missing one with a hint.
func TestMissingHomeIsRefused(t *testing.T) {
	parent := t.TempDir()
	missing := filepath.Join(parent, "typo")
	want := `huimem: no HuiMemory home at ` + missing + ` (run "huimem init" or pass --home)` + "\n"
	for _, args := range [][]string{
		{"recall", "anything"},
		{"recall", "--json", "--batch", "-"},
		{"get", "abcdef"},
		{"stats"},
		{"reindex"},
		{"archive", "list"},
		{"archive", "seal"},
		{"archive", "verify"},
		{"mcp"},
	} {
		out, errs, code := cli(t, missing, args...)
		if code != exitUsage || errs != want || out != "" {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want %d and %q", args, code, out, errs, exitUsage, want)
		}
		if _, err := os.Stat(missing); !os.IsNotExist(err) {
			t.Fatalf("%v created the home: %v", args, err)
		}
	}

	// ingest and add create it, and say so.
	for i, args := range [][]string{
		{"ingest", sampleFile},
		{"add", "--session", "s", "--role", "user", "hello"},
	} {
		home := filepath.Join(parent, "new", args[0])
		_, errs, code := cli(t, home, args...)
		if code != 0 || errs != "huimem: created a new HuiMemory home at "+home+"\n" {
			t.Errorf("%d %v: code %d, stderr %q", i, args[0], code, errs)
		}
		// Once made, nothing more is said.
		if _, errs, _ := cli(t, home, args...); errs != "" {
			t.Errorf("%v again: stderr %q", args[0], errs)
		}
		if _, errs, code := cli(t, home, "stats"); code != 0 {
			t.Errorf("stats after %v: %d %s", args[0], code, errs)
		}
	}
	// init creates it without a notice: it prints the home itself.
	home := filepath.Join(parent, "new", "init")
	out, errs, code := cli(t, home, "init")
	if code != 0 || errs != "" || !strings.Contains(out, "home: "+home) {
		t.Errorf("init: code %d, stderr %q, stdout %q", code, errs, out)
	}
}

// A misspelt JSONL field fails the file with path:line; nothing of the
// file is stored, so the message cannot leak into the default namespace.
func TestIngestRefusesUnknownField(t *testing.T) {
	home := ingested(t)
	file := filepath.Join(t.TempDir(), "alice.jsonl")
	os.WriteFile(file, []byte(`{"namespace":"alice","session":"a","time":"2026-11-20T10:00:00Z","role":"user","text":"my private note one"}
{"namespace":"alice","session":"a","time":"2026-11-20T10:01:00Z","role":"assistant","text":"noted"}
{"namepsace":"alice","session":"a","time":"2026-11-20T10:02:00Z","role":"user","text":"my private note two"}
`), 0o600)
	_, errs, code := cli(t, home, "ingest", file)
	if code != exitUsage || !strings.Contains(errs, file+`:3: unknown field "namepsace" (did you mean "namespace"?)`) {
		t.Errorf("code %d, stderr %q", code, errs)
	}
	for _, ns := range []string{"", "alice"} {
		out, _, _ := cli(t, home, "recall", "--json", "-n", ns, "private note")
		var res render.JSONResults
		json.Unmarshal([]byte(out), &res)
		for _, r := range res.Results {
			if r.Session == "a" {
				t.Errorf("namespace %q holds %s from the refused file", ns, r.ID)
			}
		}
	}
}

func TestCheckEnv(t *testing.T) {
	for _, tt := range []struct {
		env  string
		want string // "" means accepted
	}{
		{"HUIMEM_RETRIEVER_TOP_K=3", ""},
		{"HUIMEM_TIME_ZONE=UTC", ""},
		{"HUIMEM_EMBEDDING_NAME=hash", ""},
		{"HUIMEM_SERVER_TOKEN=x", ""},
		{"HUIMEM_DEBUG=1", ""},
		{"HUIMEM_MODELS=/m", ""},
		{"HUIMEM_PLUGIN=cookie", ""},
		{"HUIMEM_NET_TESTS=1", ""},
		{"HUIMEM_TEST_LLM_KEY=k", ""},
		{"HUIMEM_TOKEN=t", ""},
		{"HUIMEM_SOMETHING_UNRELATED=1", ""}, // names no section
		{"OTHER_RETRIEVER_TOPK=1", ""},
		{"HUIMEM_RETRIEVER_TOPK=3", "config: HUIMEM_RETRIEVER_TOPK: unknown environment variable; did you mean HUIMEM_RETRIEVER_TOP_K (retriever.top_k)?"},
		{"HUIMEM_RETREIVER_TOP_K=3", "config: HUIMEM_RETREIVER_TOP_K: unknown environment variable; did you mean HUIMEM_RETRIEVER_TOP_K (retriever.top_k)?"},
		{"HUIMEM_STORGE_HOME=/x", "config: HUIMEM_STORGE_HOME: unknown environment variable; did you mean HUIMEM_STORAGE_HOME (storage.home)?"},
		{"HUIMEM_HOME=/x", "config: HUIMEM_HOME: unknown environment variable; did you mean HUIMEM_STORAGE_HOME (storage.home)?"},
		{"HUIMEM_TIMEZONE=UTC", "config: HUIMEM_TIMEZONE: unknown environment variable; did you mean HUIMEM_TIME_ZONE (time.zone)?"},
		{"HUIMEM_RETRIEVER_WHATEVER_ELSE=1", "config: HUIMEM_RETRIEVER_WHATEVER_ELSE: unknown environment variable: no setting has this name"},
	} {
		err := checkEnv([]string{"PATH=/bin", tt.env})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.env, got, tt.want)
		}
	}
}

func TestConfigKeys(t *testing.T) {
	keys := configKeys()
	for _, k := range []string{"mode", "storage.home", "embedding.name", "embedding.dim", "embedding.options", "chunker.name", "extractors",
		"retriever.top_k", "retriever.context_boost", "archive.level", "plugins.timeout", "server.tokens", "time.zone"} {
		if !slices.Contains(keys, k) {
			t.Errorf("configKeys lacks %q", k)
		}
	}
	// Every key of the documented defaults is one of them.
	out, _, code := cli(t, t.TempDir(), "config")
	if code != 0 {
		t.Fatal("config failed")
	}
	// path holds the enclosing keys by indentation (two spaces a level);
	// a key with no value on its line opens a nested section such as
	// storage.postgres, whose keys are checked in full.
	var path []string
	for _, line := range strings.Split(out, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "-") || strings.HasPrefix(trimmed, "#") {
			continue
		}
		level := (len(line) - len(strings.TrimLeft(line, " "))) / 2
		if level > len(path) {
			continue // inside a list or a map value such as options
		}
		path = path[:level]
		name, value, _ := strings.Cut(trimmed, ":")
		if level == 0 {
			path = append(path, name) // a section, or a top-level key such as mode
			continue
		}
		k := strings.Join(append(slices.Clone(path), name), ".")
		if value = strings.TrimSpace(value); value == "" && !slices.Contains(keys, k) {
			path = append(path, name) // a nested section
			continue
		}
		if !slices.Contains(keys, k) {
			t.Errorf("config prints %q, which configKeys lacks", k)
		}
	}
}

func TestMisspeltEnvIsAConfigError(t *testing.T) {
	home := ingested(t)
	t.Setenv("HUIMEM_RETRIEVER_TOPK", "3")
	for _, args := range [][]string{{"config"}, {"recall", "q"}, {"stats"}} {
		_, errs, code := cli(t, home, args...)
		oneLineErr(t, strings.Join(args, " "), errs, code, exitUsage, "HUIMEM_RETRIEVER_TOPK: unknown environment variable; did you mean HUIMEM_RETRIEVER_TOP_K (retriever.top_k)?")
	}
}

func TestZeroWeightsAreAnError(t *testing.T) {
	home := ingested(t)
	want := "config: retriever.vector_weight: vector_weight and bm25_weight are both 0"
	writeConfig(t, home, "retriever:\n  vector_weight: 0\n  bm25_weight: 0\n")
	_, errs, code := cli(t, home, "recall", "q")
	oneLineErr(t, "both 0 in YAML", errs, code, exitUsage, want)
	if !strings.Contains(errs, filepath.Join(home, "config.yaml")) {
		t.Errorf("error does not name the file: %q", errs)
	}

	os.Remove(filepath.Join(home, "config.yaml"))
	t.Setenv("HUIMEM_RETRIEVER_VECTOR_WEIGHT", "0")
	t.Setenv("HUIMEM_RETRIEVER_BM25_WEIGHT", "0")
	_, errs, code = cli(t, home, "config")
	oneLineErr(t, "both 0 in the environment", errs, code, exitUsage, want)

	// One weight at 0 is a valid choice (BM25 only), kept as given.
	t.Setenv("HUIMEM_RETRIEVER_BM25_WEIGHT", "1")
	out, errs, code := cli(t, home, "config")
	if code != 0 || !strings.Contains(out, "vector_weight: 0\n") || !strings.Contains(out, "bm25_weight: 1\n") {
		t.Errorf("BM25 only: code %d %s\n%s", code, errs, out)
	}
}

func TestEmptyQuery(t *testing.T) {
	home := ingested(t)
	for _, q := range []string{"", "   "} {
		out, errs, code := cli(t, home, "recall", q)
		oneLineErr(t, "recall "+q, errs, code, exitUsage, "recall: the query is empty; give a QUERY, or --filter or --since/--before")
		if out != "" {
			t.Errorf("recall %q printed %q", q, out)
		}
	}
	// With a filter or a time range, an empty query lists what they match.
	for _, args := range [][]string{
		{"recall", "--json", "", "--filter", "session = 'kyoto-trip'"},
		{"recall", "--json", "--filter", "session = 'kyoto-trip'"},
		{"recall", "--json", "--since", "2026-11-10", "--before", "2026-11-12"},
	} {
		out, errs, code := cli(t, home, args...)
		var res render.JSONResults
		json.Unmarshal([]byte(out), &res)
		if code != 0 || len(res.Results) == 0 {
			t.Errorf("%v: code %d, %s, %d results", args, code, errs, len(res.Results))
		}
		for _, r := range res.Results {
			if r.Session != "kyoto-trip" {
				t.Errorf("%v: hit from session %s", args, r.Session)
			}
		}
	}
}

func TestBatchWithFailuresExitsNonZero(t *testing.T) {
	home := ingested(t)
	for _, tt := range []struct {
		in, errs string
		code     int
	}{
		{`{"query":"Kyoto"}` + "\n" + `{"query":"AI"}` + "\n", "", 0},
		{`{"query":"Kyoto"}` + "\n" + `{"query":"x","top_k":-1}` + "\n", "huimem: 1 of 2 queries failed; see their \"error\" fields\n", exitError},
		{"not json\n" + `{"turn_id":"zzzzzz"}` + "\n", "huimem: 2 of 2 queries failed; see their \"error\" fields\n", exitError},
	} {
		qfile := filepath.Join(t.TempDir(), "q.jsonl")
		os.WriteFile(qfile, []byte(tt.in), 0o600)
		out, errs, code := cli(t, home, "recall", "--json", "--batch", qfile)
		if code != tt.code || errs != tt.errs || strings.Count(out, "\n") != 2 {
			t.Errorf("%q: code %d, stderr %q, %d lines out; want %d, %q", tt.in, code, errs, strings.Count(out, "\n"), tt.code, tt.errs)
		}
	}
}

func TestGetIsCaseInsensitive(t *testing.T) {
	home := ingested(t)
	out, _, _ := cli(t, home, "recall", "--json", "--top-k", "1", "ryokan near Gion")
	var res render.JSONResults
	json.Unmarshal([]byte(out), &res)
	if len(res.Results) == 0 {
		t.Fatal("no hit")
	}
	id := res.Results[0].ID
	var got []string
	for _, arg := range []string{id, strings.ToUpper(id), " " + strings.ToUpper(id[:3]) + id[3:]} {
		out, errs, code := cli(t, home, "get", "--json", arg)
		var r render.JSONResults
		json.Unmarshal([]byte(out), &r)
		if code != 0 || len(r.Results) != 1 {
			t.Errorf("get %q: code %d %s", arg, code, errs)
			continue
		}
		got = append(got, r.Results[0].ID)
	}
	if diff := cmp.Diff([]string{id, id, id}, got); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

// TestRemovedInProcessKey checks that a config still setting the removed
// plugins.in_process key gets one clear line naming the switch to use.
func TestRemovedInProcessKey(t *testing.T) {
	home := ingested(t)
	writeConfig(t, home, "plugins:\n  in_process: true\n")
	_, errs, code := cli(t, home, "stats")
	oneLineErr(t, "in_process", errs, code, exitUsage, "plugins.in_process is no longer a setting; delete it")
}
