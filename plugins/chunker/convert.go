package chunker

import (
	"fmt"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/internal/pb"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

func chunkRequestFromPB(req *pb.ChunkRequest) ([]core.SessionMessage, error) {
	return messagesFromPB(req.GetMessages())
}

func chunkResponseToPB(spans []core.Span) *pb.ChunkResponse {
	return &pb.ChunkResponse{Spans: spansToPB(spans)}
}

func chunkResponseFromPB(resp *pb.ChunkResponse) []core.Span {
	return spansFromPB(resp.GetSpans())
}

func messagesToPB(msgs []core.SessionMessage) []*pb.SessionMessage {
	out := make([]*pb.SessionMessage, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		out[i] = &pb.SessionMessage{
			Message:    shared.MessageToPB(&m.Message),
			HeaderLine: int32(m.HeaderLine),
			TextStart:  int32(m.TextStart),
			TextEnd:    int32(m.TextEnd),
		}
	}
	return out
}

func messagesFromPB(msgs []*pb.SessionMessage) ([]core.SessionMessage, error) {
	out := make([]core.SessionMessage, len(msgs))
	for i, m := range msgs {
		msg, err := shared.MessageFromPB(m.GetMessage())
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i+1, err)
		}
		out[i] = core.SessionMessage{
			Message:    msg,
			HeaderLine: int(m.GetHeaderLine()),
			TextStart:  int(m.GetTextStart()),
			TextEnd:    int(m.GetTextEnd()),
		}
	}
	return out, nil
}

func spansToPB(spans []core.Span) []*pb.Span {
	out := make([]*pb.Span, len(spans))
	for i, s := range spans {
		out[i] = &pb.Span{
			From: int32(s.From), To: int32(s.To),
			LineStart: int32(s.LineStart), LineEnd: int32(s.LineEnd),
			Text: s.Text, Section: s.Section,
		}
	}
	return out
}

func spansFromPB(spans []*pb.Span) []core.Span {
	out := make([]core.Span, len(spans))
	for i, s := range spans {
		out[i] = core.Span{
			From: int(s.GetFrom()), To: int(s.GetTo()),
			LineStart: int(s.GetLineStart()), LineEnd: int(s.GetLineEnd()),
			Text: s.GetText(), Section: s.GetSection(),
		}
	}
	return out
}
