package formats

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/huimemory/huimemory/core"
)

type slackMessage struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	User        string `json:"user"`
	BotID       string `json:"bot_id"`
	Username    string `json:"username"`
	Text        string `json:"text"`
	TS          string `json:"ts"`
	UserProfile *struct {
		DisplayName string `json:"display_name"`
		RealName    string `json:"real_name"`
		Name        string `json:"name"`
	} `json:"user_profile"`
}

// slackSkip are message subtypes that are not conversation.
var slackSkip = map[string]bool{
	"channel_join": true, "channel_leave": true, "group_join": true, "group_leave": true,
}

// readSlack reads one day file of a Slack export,
// <export>/<channel>/YYYY-MM-DD.json: a JSON array of messages. The
// session is "slack:<channel>:<date>" (the folder and file names), so that
// each day of a channel is one conversation. Messages have no role; the
// speaker is the user's display name from users.json (see [SlackUsers]),
// else the name in the message's user_profile, else the bot's username,
// else the user id. The time is the message's ts (Unix seconds, to the
// microsecond) in [Options.Location]; the ref is the ts. Join and leave
// notices are skipped. Text stays verbatim, mentions (<@U0123>) included.
func readSlack(r io.Reader, name string, opts Options) ([]core.Message, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	var raw []slackMessage
	if err := decodeDoc(name, data, &raw); err != nil {
		return nil, err
	}
	channel := filepath.Base(filepath.Dir(name))
	if channel == "." || channel == string(filepath.Separator) {
		channel = "slack"
	}
	day := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	session := "slack:" + channel + ":" + day
	var msgs []core.Message
	for i, m := range raw {
		if (m.Type != "" && m.Type != "message") || slackSkip[m.Subtype] {
			continue
		}
		sec, err := strconv.ParseFloat(m.TS, 64)
		if err != nil || m.TS == "" {
			return nil, &core.InputError{Path: name, Err: fmt.Errorf("message %d: bad ts %q: want Unix seconds such as \"1700000000.000100\"", i+1, m.TS)}
		}
		text := StripNoise(m.Text)
		if strings.TrimSpace(text) == "" {
			continue
		}
		speaker := opts.SlackUsers[m.User]
		if speaker == "" && m.UserProfile != nil {
			speaker = cmpOr(m.UserProfile.DisplayName, cmpOr(m.UserProfile.RealName, m.UserProfile.Name))
		}
		speaker = cmpOr(speaker, cmpOr(m.Username, cmpOr(m.User, cmpOr(m.BotID, "unknown"))))
		msgs = append(msgs, core.Message{Session: session, Time: unixTime(sec, opts.loc()), Speaker: speaker, Text: text, Ref: m.TS})
	}
	return finish(name, msgs, opts, nil)
}

type slackUser struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Profile struct {
		DisplayName string `json:"display_name"`
		RealName    string `json:"real_name"`
	} `json:"profile"`
	RealName string `json:"real_name"`
}

var slackUsersCache sync.Map // path → slackUsersEntry

type slackUsersEntry struct {
	mod   time.Time
	size  int64
	users map[string]string
}

// SlackUsers reads a Slack export's users.json and maps each user id to a
// display name (profile.display_name, else real_name, else name). A
// missing file gives an empty map and no error. Results are cached by
// path, size and modification time.
func SlackUsers(path string) (map[string]string, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if v, ok := slackUsersCache.Load(path); ok {
		e := v.(slackUsersEntry)
		if e.mod.Equal(fi.ModTime()) && e.size == fi.Size() {
			return e.users, nil
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var users []slackUser
	if err := decodeDoc(path, data, &users); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(users))
	for _, u := range users {
		if n := cmpOr(u.Profile.DisplayName, cmpOr(u.Profile.RealName, cmpOr(u.RealName, u.Name))); u.ID != "" && n != "" {
			out[u.ID] = n
		}
	}
	slackUsersCache.Store(path, slackUsersEntry{fi.ModTime(), fi.Size(), out})
	return out, nil
}
