package cli

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// initAllocs runs this test binary, which links the packages huimem
// links, with GODEBUG=inittrace=1 and no test, and returns the bytes each
// package allocated in its init.
func initAllocs(t *testing.T) map[string]int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("running the test binary with inittrace: %v\n%s", err, stderr.String())
	}
	bytesOf := map[string]int{}
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		b, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		bytesOf[f[1]] = b
	}
	return bytesOf
}

// TestInitAllocatesLittle pins the inits of our packages that used to do
// work every huimem process paid for before main, whatever the command:
// regular expressions and word tables that only some commands use are
// built on first use. Allocated bytes stand for the
// work (they do not depend on the machine's speed); each limit is several
// times today's figure and far below the old one.
func TestInitAllocatesLittle(t *testing.T) {
	got := initAllocs(t)
	for _, tt := range []struct {
		pkg   string
		limit int // bytes; the old figure in the comment
	}{
		{"github.com/huimemory/huimemory/timeparse", 128 << 10},               // 2.1 MB: 62 rules compiled
		{"github.com/huimemory/huimemory/plugins/extractor/general", 4 << 10}, // 34,336: keyword index
		{"github.com/huimemory/huimemory/plugins/extractor/topic", 4 << 10},   // 41,728: stop words
	} {
		t.Run(tt.pkg, func(t *testing.T) {
			b, ok := got[tt.pkg]
			if !ok {
				t.Fatalf("no inittrace line for %s: is it still linked?", tt.pkg)
			}
			if b > tt.limit {
				t.Errorf("init of %s allocates %d bytes, want at most %d: is work done at package init that a command may not need?", tt.pkg, b, tt.limit)
			}
		})
	}
}
