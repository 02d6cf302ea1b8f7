package cli

import (
	"io"
	"testing"
)

// BenchmarkLoadConfig is the configuration every command loads first:
// embedded defaults, no config file, no HUIMEM_* settings.
func BenchmarkLoadConfig(b *testing.B) {
	a := &App{Stdout: io.Discard, Stderr: io.Discard, Home: b.TempDir()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.loadConfig(); err != nil {
			b.Fatal(err)
		}
	}
}
