package tools

import (
	_ "embed"
	"fmt"
)

var (
	//go:embed prompts/en.md
	promptEN string
	//go:embed prompts/zh.md
	promptZH string
)

// Prompt returns the memory-rules system prompt, which tells an LLM when to
// call recall_memory and recall_by_id and how to cite anchors, in "en" or
// "zh".
func Prompt(lang string) (string, error) {
	switch lang {
	case "en", "":
		return promptEN, nil
	case "zh", "zh-cn", "zh-CN", "cn":
		return promptZH, nil
	}
	return "", fmt.Errorf("tools: no memory-rules prompt in %q (languages: en, zh)", lang)
}
