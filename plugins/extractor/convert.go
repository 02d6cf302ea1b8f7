package extractor

import (
	"fmt"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/internal/pb"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

func extractRequestFromPB(req *pb.ExtractRequest) (*core.Chunk, error) {
	return chunkFromPB(req.GetChunk())
}

func extractResponseToPB(mems []core.Memory) *pb.ExtractResponse {
	return &pb.ExtractResponse{Memories: memoriesToPB(mems)}
}

func extractResponseFromPB(resp *pb.ExtractResponse) []core.Memory {
	return memoriesFromPB(resp.GetMemories())
}

func chunkToPB(c *core.Chunk) *pb.Chunk {
	msgs := make([]*pb.Message, len(c.Messages))
	for i := range c.Messages {
		msgs[i] = shared.MessageToPB(&c.Messages[i])
	}
	return &pb.Chunk{
		Id: c.ID, Prev: c.Prev, Next: c.Next,
		Namespace: c.Namespace, Session: c.Session,
		Time: shared.FormatTime(c.Time), End: shared.FormatTime(c.End),
		File: c.File, LineStart: int32(c.LineStart), LineEnd: int32(c.LineEnd),
		Section: c.Section, Topic: c.Topic,
		Messages: msgs, Text: c.Text, Content: c.Content(),
	}
}

// chunkFromPB converts a chunk from the wire. Its memories are not sent:
// an extractor sees the chunk as the chunker cut it.
func chunkFromPB(c *pb.Chunk) (*core.Chunk, error) {
	start, err := shared.ParseTime(c.GetTime())
	if err != nil {
		return nil, err
	}
	end, err := shared.ParseTime(c.GetEnd())
	if err != nil {
		return nil, err
	}
	out := &core.Chunk{
		Anchor:    core.Anchor{ID: c.GetId(), Prev: c.GetPrev(), Next: c.GetNext()},
		Namespace: c.GetNamespace(), Session: c.GetSession(),
		Time: start, End: end,
		File: c.GetFile(), LineStart: int(c.GetLineStart()), LineEnd: int(c.GetLineEnd()),
		Section: c.GetSection(), Topic: c.GetTopic(), Text: c.GetText(),
	}
	for i, m := range c.GetMessages() {
		msg, err := shared.MessageFromPB(m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i+1, err)
		}
		out.Messages = append(out.Messages, msg)
	}
	return out, nil
}

func memoriesToPB(mems []core.Memory) []*pb.Memory {
	out := make([]*pb.Memory, len(mems))
	for i, m := range mems {
		out[i] = &pb.Memory{Type: m.Type, Entities: m.Entities, Topic: m.Topic, Facts: m.Facts, Extractor: m.Extractor}
	}
	return out
}

func memoriesFromPB(mems []*pb.Memory) []core.Memory {
	out := make([]core.Memory, len(mems))
	for i, m := range mems {
		out[i] = core.Memory{
			Type: m.GetType(), Entities: m.GetEntities(), Topic: m.GetTopic(),
			Facts: m.GetFacts(), Extractor: m.GetExtractor(),
		}
	}
	return out
}
