package cold

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// warmUp is how many recalls a warm run sends before it starts timing.
const warmUp = 20

// WarmStats is what a long-running server costs: one `huimem serve` on the
// home, answering recalls over HTTP one after the other, as a sidecar
// does. PeakRSS and CPUMS are the whole server process's, from start to
// shutdown (getrusage), so they include the opening of the home.
type WarmStats struct {
	Recalls int     `json:"recalls"`
	P50MS   float64 `json:"p50_ms"`
	P99MS   float64 `json:"p99_ms"`
	CPUMS   float64 `json:"cpu_ms"`
	PeakRSS int64   `json:"peak_rss_bytes"`
	// RSSFromRusage is set when PeakRSS comes from getrusage (see Proc).
	RSSFromRusage bool `json:"rss_from_rusage,omitempty"`
}

// warm starts `huimem serve` on home at a free loopback port, sends
// [warmUp] untimed recalls and then n timed ones (queries in turn), and
// stops the server with SIGTERM.
func (o Options) warm(ctx context.Context, home string, queries []string, n int) (*WarmStats, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	c := exec.CommandContext(ctx, o.Exe, "--home", home, "serve", "--addr", addr)
	rssFile := filepath.Join(o.Dir, "peak-rss-serve")
	os.Remove(rssFile)
	c.Env = append(append(os.Environ(), o.Env...), "HUIMEM_PEAK_RSS_FILE="+rssFile)
	var errb bytes.Buffer
	c.Stdout, c.Stderr = io.Discard, &errb
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("starting huimem serve: %w", err)
	}
	stopped := false
	defer func() {
		if !stopped {
			c.Process.Kill()
			c.Wait()
		}
	}()
	base := "http://" + addr
	if err := waitHealthy(ctx, base, 10*time.Minute); err != nil {
		return nil, fmt.Errorf("huimem serve: %w: %s", err, bytes.TrimSpace(errb.Bytes()))
	}
	var lat []float64
	for i := range warmUp + n {
		t0 := time.Now()
		if err := recallHTTP(ctx, base, queries[i%len(queries)]); err != nil {
			return nil, err
		}
		if i >= warmUp {
			lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
		}
	}
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		return nil, fmt.Errorf("stopping huimem serve: %w", err)
	}
	stopped = true
	if err := c.Wait(); err != nil {
		return nil, fmt.Errorf("huimem serve exited: %w: %s", err, bytes.TrimSpace(errb.Bytes()))
	}
	ws := &WarmStats{Recalls: n}
	slices.Sort(lat)
	ws.P50MS, ws.P99MS = percentile(lat, 0.50), percentile(lat, 0.99)
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		ws.PeakRSS, ws.RSSFromRusage = ru.Maxrss*1024, true
		ws.CPUMS = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
	}
	if n, ok := readPeakRSS(rssFile); ok {
		ws.PeakRSS, ws.RSSFromRusage = n, false
	}
	return ws, nil
}

// percentile returns the p-quantile of sorted values (nearest rank).
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// freeLoopbackAddr returns a loopback address with a port nobody listens
// on right now.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// waitHealthy polls base/healthz until it answers 200 or the wait is over.
func waitHealthy(ctx context.Context, base string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/healthz", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not healthy after %s", wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// recallHTTP sends one recall to the server and checks that it answered.
func recallHTTP(ctx context.Context, base, query string) error {
	body, err := json.Marshal(map[string]any{"query": query, "top_k": 10})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/recall", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("recall over HTTP: %w", err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("recall over HTTP: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("recall over HTTP: %s: %s", resp.Status, bytes.TrimSpace(out))
	}
	return nil
}
