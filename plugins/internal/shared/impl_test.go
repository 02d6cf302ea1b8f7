package shared

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// talker is the kind the tests serve.
type talker interface{ Talk() string }

type plain struct{}

func (plain) Talk() string { return "plain" }

// tuned takes options and has a version.
type tuned struct {
	options map[string]string
	version string
}

func (*tuned) Talk() string { return "tuned" }

func (t *tuned) Configure(_ context.Context, options map[string]string) error {
	if options["fail"] != "" {
		return errors.New("bad option fail")
	}
	t.options = options
	return nil
}

func (t *tuned) Version() string { return t.version }

func TestStatic(t *testing.T) {
	ctx := t.Context()
	f := Static[talker]("talker", plain{})
	if got, err := f(ctx, nil); err != nil || got != (plain{}) {
		t.Errorf("no options = %v, %v; want plain and no error", got, err)
	}
	got, err := f(ctx, map[string]string{"x": "1"})
	if got != (plain{}) || !errors.Is(err, ErrUnsupported) || err.Error() != "not supported by the plugin: the talker takes no options" {
		t.Errorf("options without Configure = %v, %v; want plain and ErrUnsupported", got, err)
	}

	tu := &tuned{}
	f = Static[talker]("talker", tu)
	if got, err := f(ctx, map[string]string{"lang": "en"}); err != nil || got != tu {
		t.Errorf("options = %v, %v; want the implementation", got, err)
	}
	if d := cmp.Diff(map[string]string{"lang": "en"}, tu.options); d != "" {
		t.Errorf("options (-want +got):\n%s", d)
	}
	if got, err := f(ctx, map[string]string{"fail": "1"}); got != nil || err == nil || err.Error() != "bad option fail" {
		t.Errorf("rejected options = %v, %v; want nil and the implementation's error", got, err)
	}
}

func TestImpl(t *testing.T) {
	ctx := t.Context()
	t.Run("no factory", func(t *testing.T) {
		s := &Impl[talker]{Kind: "talker"}
		const want = "talker plugin has no factory"
		if _, err := s.Get(ctx); err == nil || err.Error() != want {
			t.Errorf("Get = %v, want %q", err, want)
		}
		if err := s.Configure(ctx, nil); err == nil || err.Error() != want {
			t.Errorf("Configure = %v, want %q", err, want)
		}
		if _, err := s.Info(ctx); err == nil || err.Error() != want {
			t.Errorf("Info = %v, want %q", err, want)
		}
	})
	t.Run("built once without Configure", func(t *testing.T) {
		calls := 0
		s := &Impl[talker]{Kind: "talker", Factory: func(_ context.Context, options map[string]string) (talker, error) {
			calls++
			if options != nil {
				t.Errorf("factory got options %v", options)
			}
			return plain{}, nil
		}}
		for range 3 {
			if got, err := s.Get(ctx); err != nil || got != (plain{}) {
				t.Fatalf("Get = %v, %v", got, err)
			}
		}
		if calls != 1 {
			t.Errorf("factory called %d times, want once", calls)
		}
	})
	t.Run("failed build is tried again", func(t *testing.T) {
		fail := true
		s := &Impl[talker]{Kind: "talker", Factory: func(context.Context, map[string]string) (talker, error) {
			if fail {
				return nil, errors.New("not yet")
			}
			return plain{}, nil
		}}
		if _, err := s.Get(ctx); err == nil || err.Error() != "not yet" {
			t.Errorf("Get = %v, want the factory's error", err)
		}
		fail = false
		if got, err := s.Get(ctx); err != nil || got != (plain{}) {
			t.Errorf("Get after the failure = %v, %v", got, err)
		}
	})
	t.Run("Configure keeps an unsupported implementation", func(t *testing.T) {
		s := &Impl[talker]{Kind: "talker", Factory: Static[talker]("talker", plain{})}
		if err := s.Configure(ctx, map[string]string{"x": "1"}); !errors.Is(err, ErrUnsupported) {
			t.Errorf("Configure = %v, want ErrUnsupported", err)
		}
		if got, err := s.Get(ctx); err != nil || got != (plain{}) {
			t.Errorf("Get after Configure = %v, %v", got, err)
		}
	})
	t.Run("Configure replaces the implementation", func(t *testing.T) {
		s := &Impl[talker]{Kind: "talker", Factory: func(_ context.Context, options map[string]string) (talker, error) {
			if options == nil {
				return plain{}, nil
			}
			return &tuned{options: options}, nil
		}}
		if got, _ := s.Get(ctx); got.Talk() != "plain" {
			t.Fatalf("Get = %v", got)
		}
		if err := s.Configure(ctx, map[string]string{"a": "b"}); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Get(ctx); got.Talk() != "tuned" {
			t.Errorf("Get after Configure = %v, want the configured implementation", got)
		}
	})
}

func TestImplInfo(t *testing.T) {
	for _, tc := range []struct {
		name          string
		cfgName       string
		cfgVersion    string
		impl          talker
		wantName      string
		wantVersion   string
		buildFallback bool
	}{
		{"configured", "rec", "v0.1.0", &tuned{version: "v9"}, "rec", "v0.1.0", false},
		{"Versioner", "rec", "", &tuned{version: "v9"}, "rec", "v9", false},
		{"empty Versioner", "", "", &tuned{}, ProgramName(), BuildVersion(), true},
		{"no Versioner", "", "", plain{}, ProgramName(), BuildVersion(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Impl[talker]{Kind: "talker", Factory: Static(KindChunker, tc.impl), Name: tc.cfgName, Version: tc.cfgVersion}
			pi, err := s.Info(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if pi.GetName() != tc.wantName || pi.GetVersion() != tc.wantVersion {
				t.Errorf("Info = %q %q, want %q %q", pi.GetName(), pi.GetVersion(), tc.wantName, tc.wantVersion)
			}
			if got := s.VersionOf(tc.impl); got != tc.wantVersion {
				t.Errorf("VersionOf = %q, want %q", got, tc.wantVersion)
			}
			if tc.buildFallback && (pi.GetName() == "" || strings.HasSuffix(pi.GetName(), ".exe") || pi.GetVersion() == "") {
				t.Errorf("fallbacks = %q %q, want the program's name and a build version", pi.GetName(), pi.GetVersion())
			}
		})
	}
}
