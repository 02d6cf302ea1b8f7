package index

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// zapRSS returns how many KiB of the index's segment files (.zap) this
// process has resident through its memory maps (/proc/self/smaps).
func zapRSS(t *testing.T) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	kb, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		// A mapping's header: "start-end perms offset dev inode [path]"
		// (an anonymous one has no path).
		if fields := strings.Fields(line); len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = len(fields) >= 6 && strings.HasSuffix(fields[5], ".zap")
			continue
		}
		if v, ok := strings.CutPrefix(line, "Rss:"); ok && in {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			kb += n
		}
	}
	return kb
}

// releaseDocs returns n chunks of random words, some megabytes of
// segments in a few batches.
func releaseDocs(batch, n int) []Doc {
	r := rand.New(rand.NewPCG(uint64(batch), 7))
	base := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	docs := make([]Doc, n)
	for i := range docs {
		var b strings.Builder
		for range 40 {
			fmt.Fprintf(&b, "w%x ", r.IntN(20000))
		}
		docs[i] = Doc{ID: fmt.Sprintf("c%d-%d", batch, i), Session: fmt.Sprintf("s%d", i%50),
			Time: base.Add(time.Duration(batch*n+i) * time.Minute), Text: b.String(), Reply: b.String()[:40]}
	}
	return docs
}

// readSegments reads every byte of every segment's map, as a merge does.
func readSegments(t *testing.T, x *Index) (sum int) {
	t.Helper()
	snap, err := x.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	for _, seg := range snap.Segments() {
		f, ok := seg.Segment().(interface{ Data() []byte })
		if !ok {
			continue
		}
		for _, c := range f.Data() {
			sum += int(c)
		}
	}
	return sum
}

// TestReleaseMappedIndex: pages of the segments that a read left resident
// are dropped by ReleaseMapped, and searches give the same matches after;
// releases beside a Merge (as the engine runs them) leave it whole, and
// little of the index resident.
func TestReleaseMappedIndex(t *testing.T) {
	x := openTest(t)
	for b := range 4 {
		if err := x.Apply(releaseDocs(b, 3000), nil, uint64(b+1)); err != nil {
			t.Fatal(err)
		}
	}
	search := func() []Match {
		ms, err := x.Search(t.Context(), Search{Text: "w1a w2b w3c w4d w5e w10 w2000", ReplyBoost: 0.3, Size: 50})
		if err != nil {
			t.Fatal(err)
		}
		return ms
	}
	want := search()
	if len(want) == 0 {
		t.Fatal("no matches: the test needs some")
	}
	sum := readSegments(t, x)
	held := zapRSS(t)
	if held < 2048 {
		t.Fatalf("only %d KiB of the segments are resident after reading them all", held)
	}
	x.ReleaseMapped()
	if after := zapRSS(t); after > held/4 {
		t.Errorf("%d KiB of the segments are still resident after ReleaseMapped (%d before)", after, held)
	}
	if again := readSegments(t, x); again != sum {
		t.Errorf("the segments read %d after ReleaseMapped, %d before", again, sum)
	}
	x.ReleaseMapped()
	if got := search(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after ReleaseMapped the search gives %v, before %v", got, want)
	}

	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			default:
				x.ReleaseMapped()
				time.Sleep(time.Millisecond)
			}
		}
	}()
	err := x.Merge(t.Context())
	close(quit)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	x.ReleaseMapped()
	if st, _ := x.SegmentStats(); st.Segments != 1 {
		t.Fatalf("%d segments after Merge", st.Segments)
	}
	if after := zapRSS(t); after > held/4 {
		t.Errorf("%d KiB of the index are resident after Merge (a full read held %d)", after, held)
	}
	if n, _ := x.Count(); n != 4*3000 {
		t.Errorf("%d chunks after Merge, want %d", n, 4*3000)
	}
	if got := search(); len(got) != len(want) {
		t.Errorf("after Merge the search gives %d matches, before %d", len(got), len(want))
	}
}
