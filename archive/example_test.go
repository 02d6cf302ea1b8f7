package archive_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/huimemory/huimemory/archive"
)

// Seal a week folder into an archive and read it back.
func ExampleWrite() {
	week, _ := os.MkdirTemp("", "2026-W16-")
	defer os.RemoveAll(week)
	os.MkdirAll(filepath.Join(week, "2026-04-13"), 0o700)
	os.WriteFile(filepath.Join(week, "2026-04-13", "chat_s1.md"), []byte("# chat_s1\n\nhello\n"), 0o600)
	os.WriteFile(filepath.Join(week, "2026-04-13", "chat_s2.md"), []byte("# chat_s2\n"), 0o600)

	var buf bytes.Buffer
	info, err := archive.Write(&buf, week, archive.WriteOptions{Week: "2026-W16"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("files:", len(info.Manifest.Files), "bytes:", info.Manifest.Size())

	_, err = archive.Walk(&buf, 1<<20, func(f *archive.FileEntry, r io.Reader) error {
		data, err := io.ReadAll(r)
		fmt.Printf("%s: %q\n", f.Path, data)
		return err
	})
	fmt.Println("verified:", err == nil)
	// Output:
	// files: 2 bytes: 27
	// 2026-04-13/chat_s1.md: "# chat_s1\n\nhello\n"
	// 2026-04-13/chat_s2.md: "# chat_s2\n"
	// verified: true
}

// Entry names that could leave the week folder are refused.
func ExampleValidPath() {
	for _, p := range []string{"2026-04-13/chat_s1.md", "../../etc/passwd", "/etc/passwd", "a/./b"} {
		fmt.Println(p, archive.ValidPath(p))
	}
	// Output:
	// 2026-04-13/chat_s1.md true
	// ../../etc/passwd false
	// /etc/passwd false
	// a/./b false
}
