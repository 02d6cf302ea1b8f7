package index

import "github.com/blevesearch/bleve/v2/search/searcher"

// disjunctionHeapTakeover is the number of clauses above which bleve
// merges a disjunction's matches with a heap rather than by scanning a
// slice of its clauses (bleve's default is 10). A recall's query is a
// disjunction of the question's terms in each field, and a long question
// has 15 to 40 of them. bleve's heap compares matches by their ids as
// byte slices and costs more than the scan up to at least 70 clauses:
// a one-shot recall of a 29-word BEAM question ran 95.1 M instructions
// with the heap and 77.8 M with the scan (callgrind, GOMAXPROCS=1), and
// generated questions of 12, 20, 30, 45 and 70 terms 2–10% fewer with
// the scan at every size. The slice
// scan finds the same matches with the same scores; only the order in
// which a chunk's term scores are summed differs, as between bleve's
// two searchers anyway. A filter or a query with more clauses still
// gets the heap.
const disjunctionHeapTakeover = 64

// bleve documents DisjunctionHeapTakeover as a setting for the
// application; it is process-wide, and HuiMemory's index is where the
// process uses bleve.
func init() { searcher.DisjunctionHeapTakeover = disjunctionHeapTakeover }
