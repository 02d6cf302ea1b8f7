module github.com/huimemory/huimemory/timeparse/internal/lunargen

go 1.26.0

require github.com/6tail/lunar-go v1.4.7
