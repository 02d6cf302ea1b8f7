package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/huimemory/huimemory/core"
)

// Hits writes recall hits in the text format, separated by blank lines.
func Hits(w io.Writer, hits []core.Hit) error { return write(w, hits, true) }

// Chunks writes chunks fetched by id (recall_by_id): like Hits, without
// scores.
func Chunks(w io.Writer, hits []core.Hit) error { return write(w, hits, false) }

func write(w io.Writer, hits []core.Hit, scores bool) error {
	for i := range hits {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := Hit(w, &hits[i], scores); err != nil {
			return err
		}
	}
	return nil
}

// Hit writes one hit: the anchor line, the file line and the chunk's lines
// with their virtual line numbers. With scores set, a hit's anchor line
// carries its fused score as 相似度 and its absolute relevance as 相关度
// (see [core.Hit]).
func Hit(w io.Writer, h *core.Hit, scores bool) error {
	var b strings.Builder
	b.WriteString("[" + h.Anchor.Fields())
	if h.ContextRole == core.RoleNeighbor {
		b.WriteString(" | 上下文")
	} else if scores {
		b.WriteString(" | 相似度: " + strconv.FormatFloat(h.Score, 'f', 3, 64))
		b.WriteString(" | 相关度: " + strconv.FormatFloat(h.Relevance, 'f', 3, 64))
	}
	b.WriteString("]\n")
	topic := h.Topic
	if topic == "" {
		topic = "-"
	}
	fmt.Fprintf(&b, "📁 %s:L%d-L%d | 话题: %s | %s\n", h.File, h.LineStart, h.LineEnd, topic, h.Time.Format("2006-01-02 Mon 15:04:05"))
	width := len(strconv.Itoa(h.LineEnd))
	for _, l := range Lines(&h.Chunk) {
		fmt.Fprintf(&b, "%*d | %s\n", width+2, l.N, l.Text)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Line is one numbered transcript line.
type Line struct {
	N    int
	Text string
}

// Lines returns the transcript lines of a chunk, numbered as in its
// session's transcript, from LineStart to LineEnd.
func Lines(c *core.Chunk) []Line {
	var out []Line
	n := c.LineStart
	if c.Text == "" && len(c.Messages) > 0 {
		for i := range c.Messages {
			if i > 0 {
				out = append(out, Line{n, ""})
				n++
			}
			out = append(out, Line{n, transcript.MessageHeader(&c.Messages[i])})
			n++
			for _, t := range strings.Split(c.Messages[i].Text, "\n") {
				out = append(out, Line{n, t})
				n++
			}
		}
		return out
	}
	// A chunk cut out of its messages shows its own text.
	for _, t := range strings.Split(c.Text, "\n") {
		out = append(out, Line{n, t})
		n++
	}
	return out
}
