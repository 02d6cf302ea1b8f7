package beam

import (
	"encoding/json"

	"github.com/huimemory/huimemory/internal/bench/locomo"
	"github.com/huimemory/huimemory/internal/bench/plainbm25"
)

// Baseline scores [plainbm25] on the chats: each chat's messages indexed
// on their own, each question with evidence scored as in [Run]. It
// returns the mean recall@k per cut-off, overall and per category.
func Baseline(chats []Chat, ks []int) (all map[int]float64, byCategory map[string]map[int]float64, err error) {
	all, byCategory = map[int]float64{}, map[string]map[int]float64{}
	count := map[string]int{}
	top := 0
	for _, k := range ks {
		top = max(top, k)
	}
	n := 0
	for _, c := range chats {
		var refs, texts []string
		err := eachLine(c.Path, func(_ int, line []byte) error {
			var m struct{ Text, Ref string }
			if err := json.Unmarshal(line, &m); err != nil {
				return err
			}
			refs, texts = append(refs, m.Ref), append(texts, m.Text)
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		x := plainbm25.New(refs, texts)
		for _, q := range c.Questions {
			if len(q.Evidence) == 0 {
				continue
			}
			hits := x.Search(q.Query, top)
			if byCategory[q.Category] == nil {
				byCategory[q.Category] = map[int]float64{}
			}
			for _, k := range ks {
				r := locomo.RecallAt(q.Evidence, hits, k)
				all[k] += r
				byCategory[q.Category][k] += r
			}
			count[q.Category]++
			n++
		}
	}
	for k := range all {
		all[k] /= float64(max(n, 1))
	}
	for c, byK := range byCategory {
		for k := range byK {
			byK[k] /= float64(count[c])
		}
	}
	return all, byCategory, nil
}
