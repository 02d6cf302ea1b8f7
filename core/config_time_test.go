package core

import (
	"errors"
	"testing"
	"time"
	_ "time/tzdata" // the zones, on machines without a zone database
)

func TestTimeConfig(t *testing.T) {
	for _, tt := range []struct {
		zone    string
		wantErr bool
		want    string // the location's name
	}{
		{"", false, time.Local.String()},
		{"UTC", false, "UTC"},
		{"Asia/Shanghai", false, "Asia/Shanghai"},
		{"America/New_York", false, "America/New_York"},
		{"Asia/Shanghia", true, time.Local.String()},
		{"+08:00", true, time.Local.String()},
		{"../../etc/passwd", true, time.Local.String()},
	} {
		var c Config
		c.SetDefaults()
		c.Time.Zone = tt.zone
		err := c.Validate()
		var ce *ConfigError
		if gotErr := err != nil; gotErr != tt.wantErr {
			t.Errorf("zone %q: error %v, want error %v", tt.zone, err, tt.wantErr)
		} else if err != nil && (!errors.As(err, &ce) || ce.Key != "time.zone" || !errors.Is(err, ErrInvalid)) {
			t.Errorf("zone %q: error %v is not a ConfigError for time.zone", tt.zone, err)
		}
		if got := c.Time.Location().String(); got != tt.want {
			t.Errorf("zone %q: Location() = %s, want %s", tt.zone, got, tt.want)
		}
	}
}
