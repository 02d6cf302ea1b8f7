package shared

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// BuildVersion returns the running program's main module version from its
// Go build info, such as "v1.2.0" or "(devel)", or "unknown".
func BuildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" {
		return "unknown"
	}
	return bi.Main.Version
}

// ProgramName returns the running program's file name without a ".exe".
func ProgramName() string {
	return strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
}
