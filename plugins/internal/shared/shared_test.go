package shared

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/huimemory/huimemory/core"
)

func TestStatusRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		code     codes.Code
		back     string
		isUnsupp bool
	}{
		{"plain", errors.New("model server said no"), codes.Unknown, "model server said no", false},
		{"unsupported", fmt.Errorf("%w: takes no options", ErrUnsupported), codes.Unimplemented,
			"not supported by the plugin: takes no options", true},
		{"canceled", context.Canceled, codes.Canceled, "rpc error: code = Canceled desc = context canceled", false},
		{"status", status.Error(codes.InvalidArgument, "bad chunk"), codes.InvalidArgument, "bad chunk", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := ToStatus(tc.err)
			if got := status.Code(st); got != tc.code {
				t.Errorf("code = %v, want %v", got, tc.code)
			}
			back := FromStatus(st)
			if back.Error() != tc.back {
				t.Errorf("back = %q, want %q", back, tc.back)
			}
			if errors.Is(back, ErrUnsupported) != tc.isUnsupp {
				t.Errorf("errors.Is(back, ErrUnsupported) = %v", !tc.isUnsupp)
			}
		})
	}
	if ToStatus(nil) != nil || FromStatus(nil) != nil {
		t.Error("nil did not stay nil")
	}
	// A transport failure stays a status error, so that hosts can see it.
	if err := FromStatus(status.Error(codes.Unavailable, "EOF")); status.Code(err) != codes.Unavailable {
		t.Errorf("Unavailable came back as %v", err)
	}
}

func TestTimeRoundTrip(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(2026, 3, 5, 21, 14, 3, 123456789, time.FixedZone("CST", 8*3600)),
		time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(2026, 7, 1, 9, 0, 0, 0, time.FixedZone("", -4*3600-30*60)),
	} {
		s := FormatTime(at)
		back, err := ParseTime(s)
		if err != nil {
			t.Fatal(err)
		}
		_, off := at.Zone()
		_, backOff := back.Zone()
		if !back.Equal(at) || off != backOff {
			t.Errorf("%v came back as %v (via %q)", at, back, s)
		}
	}
	if s := FormatTime(time.Time{}); s != "" {
		t.Errorf("zero time = %q", s)
	}
	if at, err := ParseTime(""); err != nil || !at.IsZero() {
		t.Errorf("ParseTime(\"\") = %v, %v", at, err)
	}
	if _, err := ParseTime("yesterday"); err == nil {
		t.Error("ParseTime(yesterday) succeeded")
	}
}

func TestMessageRoundTrip(t *testing.T) {
	m := core.Message{Namespace: "alice", Session: "s1", Time: time.Date(2026, 3, 5, 1, 2, 3, 0, time.UTC),
		Role: core.RoleAssistant, Speaker: "Bot", Text: "多行\ntext", Ref: "r1"}
	back, err := MessageFromPB(MessageToPB(&m))
	if err != nil {
		t.Fatal(err)
	}
	if back != m {
		t.Errorf("got %+v, want %+v", back, m)
	}
	pb := MessageToPB(&m)
	pb.Time = "not a time"
	if _, err := MessageFromPB(pb); err == nil {
		t.Error("a bad time was accepted")
	}
}
