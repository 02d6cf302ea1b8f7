package locomo

import "github.com/huimemory/huimemory/internal/bench/plainbm25"

// Baseline scores [plainbm25] on the samples: each conversation's
// messages indexed on their own, each question's first k message refs
// scored as in [Run]. It returns the mean recall@k per cut-off.
func Baseline(samples []Sample, captions bool, ks []int) map[int]float64 {
	out := map[int]float64{}
	n := 0
	for i := range samples {
		s := &samples[i]
		msgs := s.Messages(s.ID, captions)
		refs := make([]string, len(msgs))
		texts := make([]string, len(msgs))
		for j, m := range msgs {
			refs[j], texts[j] = m.Ref, m.Text
		}
		x := plainbm25.New(refs, texts)
		for _, q := range s.Questions {
			top := x.Search(q.Text, maxOf(ks))
			for _, k := range ks {
				out[k] += RecallAt(q.Evidence, top, k)
			}
			n++
		}
	}
	for k := range out {
		out[k] /= float64(max(n, 1))
	}
	return out
}

func maxOf(ks []int) int {
	m := 0
	for _, k := range ks {
		m = max(m, k)
	}
	return m
}
