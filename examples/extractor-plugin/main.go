package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/extractor"
)

func main() {
	extractor.Serve(&keywords{max: 5})
}

// keywords finds a chunk's most frequent words and its capitalised names.
// It implements extractor.Extractor, and the optional extractor.Configurer
// (the "max" option) and extractor.Versioner.
type keywords struct {
	max int
}

// Configure reads the options of the plugin's config entry:
//
//	options: {max: "3"}   # how many keywords to keep (default 5)
func (k *keywords) Configure(_ context.Context, options map[string]string) error {
	for key, v := range options {
		switch key {
		case "max":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return fmt.Errorf("keywords: option max: %q is not a positive whole number", v)
			}
			k.max = n
		default:
			return fmt.Errorf("keywords: unknown option %q (known: max)", key)
		}
	}
	return nil
}

// Version is what `huimem plugins` shows.
func (k *keywords) Version() string { return "v0.1.0" }

// Extract returns one memory of type "keywords": the chunk's top words as
// facts, the first of them as the topic, and capitalised words (names of
// people, places, products) as entities. A chunk with no words gives none.
func (k *keywords) Extract(_ context.Context, c *core.Chunk) ([]core.Memory, error) {
	top, names := Keywords(c.Content(), k.max)
	if len(top) == 0 {
		return nil, nil
	}
	return []core.Memory{{
		Type:     "keywords",
		Topic:    top[0],
		Entities: names,
		Facts:    top,
	}}, nil
}

// Keywords returns the text's n most frequent words (lower-cased, at least
// three letters, no stop words; ties in order of first use) and its
// capitalised words, in order of first use.
func Keywords(text string, n int) (top, names []string) {
	count := map[string]int{}
	first := map[string]int{}
	seenName := map[string]bool{}
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '\''
	})
	for i, w := range words {
		w = strings.Trim(w, "-'")
		if len([]rune(w)) < 3 {
			continue
		}
		lower := strings.ToLower(w)
		if stop[lower] {
			continue
		}
		if r := []rune(w)[0]; unicode.IsUpper(r) && !seenName[w] {
			seenName[w] = true
			names = append(names, w)
		}
		if _, ok := first[lower]; !ok {
			first[lower] = i
		}
		count[lower]++
	}
	top = slices.SortedFunc(maps.Keys(count), func(a, b string) int {
		return cmp.Or(count[b]-count[a], first[a]-first[b])
	})
	return top[:min(n, len(top))], names
}

// stop lists English words too common to be keywords.
var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for are but not you all any can had her was one our out
		has him his how its may new now old see two who boy did get let put say she too use that
		with have this will your from they know want been good much some time very when come here
		just like long make many more only over such take than them well were what where which while
		would there their about could should these those into then also because after before again
		yes okay sure thanks thank please let's i'm it's don't can't user assistant`) {
		stop[w] = true
	}
}
