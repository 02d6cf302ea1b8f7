package uselite

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// This file is the sentence-piece tokenizer of the TF.js Universal Sentence
// Encoder (@tensorflow-models/universal-sentence-encoder, as repackaged by
// @energetic-ai/embeddings). It reproduces that code's ids exactly,
// including its quirks: ties go to the later candidate, unreachable places
// fall back to the unknown id, and the backward pass steps by each piece's
// length in UTF-16 code units.

// separator replaces spaces and starts every non-empty input
// (U+2581 LOWER ONE EIGHTH BLOCK).
const separator = "\u2581"

// reservedPieces is how many leading vocabulary entries (unknown, control
// and user-defined symbols) are never matched against the text.
const reservedPieces = 6

// unknownID is the id of text that no piece matches.
const unknownID = 0

// Tokenizer turns text into USE-lite token ids. It is immutable and safe
// for concurrent use.
type Tokenizer struct {
	root     *trieNode
	pieceLen []int // length of each piece in UTF-16 code units
}

type trieNode struct {
	next  map[rune]*trieNode
	end   bool // a piece ends here
	score float64
	id    int
}

// vocabEntry is one [piece, score] pair of vocab.json.
type vocabEntry struct {
	piece string
	score float64
}

// parseVocab decodes vocab.json: an array of [piece, score] pairs whose
// places are the token ids. One decoding pass into generic values: a
// custom decoder per pair took 0.1 s of every load.
func parseVocab(b []byte) ([]vocabEntry, error) {
	var raw [][]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	if len(raw) <= reservedPieces {
		return nil, fmt.Errorf("only %d pieces", len(raw))
	}
	v := make([]vocabEntry, len(raw))
	for id, pair := range raw {
		if len(pair) != 2 {
			return nil, fmt.Errorf("entry %d: want a [piece, score] pair, got %d values", id, len(pair))
		}
		piece, ok := pair[0].(string)
		if !ok {
			return nil, fmt.Errorf("entry %d: the piece is %T, not a string", id, pair[0])
		}
		score, ok := pair[1].(float64)
		if !ok && pair[1] != nil { // a few pieces (":", "://") have null: 0
			return nil, fmt.Errorf("entry %d: the score is %T, not a number", id, pair[1])
		}
		v[id] = vocabEntry{piece, score}
	}
	return v, nil
}

// newTokenizer builds the piece trie. Pieces after the reserved ones are
// matched; a piece listed twice keeps its last id and score.
func newTokenizer(vocab []vocabEntry) *Tokenizer {
	t := &Tokenizer{root: &trieNode{}, pieceLen: make([]int, len(vocab))}
	for id, v := range vocab {
		t.pieceLen[id] = max(len(utf16.Encode([]rune(v.piece))), 1)
		if id < reservedPieces || v.piece == "" {
			continue
		}
		n := t.root
		for _, r := range v.piece {
			child := n.next[r]
			if child == nil {
				if n.next == nil {
					n.next = make(map[rune]*trieNode)
				}
				child = &trieNode{}
				n.next[r] = child
			}
			n = child
		}
		n.end, n.score, n.id = true, v.score, id
	}
	return t
}

// VocabSize is the number of pieces; every id is below it.
func (t *Tokenizer) VocabSize() int { return len(t.pieceLen) }

// Encode returns the token ids of text. The text is normalised with NFKC;
// a non-empty result is prefixed with "▁" and its spaces become "▁". Then
// the segmentation with the best total piece score wins; characters that
// start no piece become the unknown id 0, and runs of unknowns merge into
// one. Empty text gives no ids. Invalid UTF-8 is read as U+FFFD.
func (t *Tokenizer) Encode(text string) []int {
	s := norm.NFKC.String(strings.ToValidUTF8(text, "\uFFFD"))
	if s == "" {
		return []int{}
	}
	syms := []rune(separator + strings.ReplaceAll(s, " ", separator))
	n := len(syms)

	// The lattice: arcs[end] lists the pieces that end at end, by start.
	type arc struct {
		start int
		score float64
		id    int
	}
	arcs := make([][]arc, n+1)
	for i := range n {
		found := false
		node := t.root.next[syms[i]]
		for j := i; node != nil; {
			if node.end {
				arcs[j+1] = append(arcs[j+1], arc{i, node.score, node.id})
				found = true
			}
			if j++; j >= n {
				break
			}
			node = node.next[syms[j]]
		}
		if !found {
			arcs[i+1] = append(arcs[i+1], arc{i, 0, unknownID})
		}
	}

	// Forward pass. A best score of exactly 0 means "none yet", as in the
	// original; a later arc wins a tie.
	best := make([]float64, n+1)
	words := make([]int, n+1)
	for end := range arcs {
		for _, a := range arcs[end] {
			score := a.score + best[a.start]
			if best[end] == 0 || score >= best[end] {
				best[end], words[end] = score, a.id
			}
		}
	}

	// Backward pass, merging runs of unknowns.
	var ids []int
	prevUnknown := false
	for at := n; at > 0; {
		id := words[at]
		if !(prevUnknown && id == unknownID) {
			ids = append(ids, id)
		}
		prevUnknown = id == unknownID
		at -= t.pieceLen[id]
	}
	for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
	}
	return ids
}
