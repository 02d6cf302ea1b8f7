package host

import (
	"fmt"
	"strings"
	"testing"
)

func TestTail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"nothing", nil, ""},
		{"last line", []string{"starting\nloading model\n", "ready\n"}, "ready"},
		{"partial writes", []string{"par", "tial li", "ne"}, "partial line"},
		{"panic beats the stack trace", []string{"panic: boom\n\ngoroutine 1 [running]:\n", strings.Repeat("main.main()\n", 20)}, "panic: boom"},
		{"go-plugin chatter is skipped", []string{"real problem\n", `{"@level":"debug","@message":"plugin address"}` + "\n"}, "real problem"},
		{"long lines are cut", []string{strings.Repeat("x", 1000) + "\n"}, strings.Repeat("x", tailLineMax) + "..."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tl tail
			for _, w := range tc.writes {
				fmt.Fprint(&tl, w)
			}
			if got := tl.summary(); got != tc.want {
				t.Errorf("summary = %q, want %q", got, tc.want)
			}
		})
	}
}
