//go:build unix

package uselite

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapShards maps the files of one manifest group side by side into one
// private, copy-on-write mapping, so that the float32 weights can be used
// where they lie instead of being read and decoded (with the loader's
// other savings, a load went from 61-85 ms and 66 MB allocated to 15-16 ms
// and 6 MB). Only the pages the graph touches are read. ok is false, with no error, when the layout does not allow it:
// every shard but the last must fill whole pages, as the tfjs converter's
// 4 MiB shards do. The mapping lives as long as the process: the weight
// tensors point into it.
func mapShards(dir string, paths []string) (data []byte, ok bool, err error) {
	page := unix.Getpagesize()
	files, sizes, err := openShards(dir, paths)
	defer closeAll(files)
	if err != nil {
		return nil, false, err
	}
	total := 0
	for k, n := range sizes {
		if n == 0 || (k < len(sizes)-1 && n%page != 0) {
			return nil, false, nil
		}
		total += n
	}
	if total == 0 {
		return nil, false, nil
	}
	span := (total + page - 1) / page * page
	// Reserve the whole span, then lay each file over its part of it.
	base, err := unix.MmapPtr(-1, 0, nil, uintptr(span), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, false, nil // fall back to reading
	}
	at := 0
	for k, f := range files {
		addr := unsafe.Add(base, at)
		if _, err := unix.MmapPtr(int(f.Fd()), 0, addr, uintptr(sizes[k]),
			unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_FIXED); err != nil {
			unix.MunmapPtr(base, uintptr(span))
			return nil, false, nil
		}
		at += sizes[k]
	}
	return unsafe.Slice((*byte)(base), total), true, nil
}
