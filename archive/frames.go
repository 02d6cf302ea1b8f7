package archive

import (
	"encoding/binary"
	"fmt"
	"io"
)

// frameChecker passes a zstd stream through unchanged while following its
// frame and block structure, so that a stream cut short, or followed by
// anything (an archive is one frame), is noticed. The decompressor alone cannot
// always tell: when input ends inside a block it may report a clean end of
// stream and silently drop the block.
type frameChecker struct {
	r      io.Reader
	state  int
	need   int64 // bytes left in the current field
	hdr    [4]byte
	have   int
	last   bool // the current block is the frame's last
	sum    bool // the frame ends with a checksum
	frames int
	err    error
}

const (
	fsMagic    = iota // reading the 4-byte magic number
	fsDesc            // reading the frame header descriptor
	fsSkip            // skipping the rest of the frame header
	fsBlockHdr        // reading a 3-byte block header
	fsBlock           // skipping block content
	fsChecksum        // skipping the 4-byte content checksum
)

const (
	zstdMagic    = 0xFD2FB528
	maxBlockSize = 128 << 10
)

func (c *frameChecker) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	if cerr := c.feed(p[:n]); cerr != nil {
		c.err = cerr
		return 0, cerr
	}
	if err == io.EOF && !c.complete() {
		c.err = fmt.Errorf("%w: truncated: the compressed stream ends inside a frame", ErrCorrupt)
		return n, c.err
	}
	return n, err
}

// complete reports whether the stream seen so far ends at the end of a
// frame.
func (c *frameChecker) complete() bool {
	return c.frames > 0 && c.state == fsMagic && c.have == 0
}

func (c *frameChecker) feed(b []byte) error {
	for len(b) > 0 {
		switch c.state {
		case fsMagic, fsBlockHdr:
			want := 4
			if c.state == fsBlockHdr {
				want = 3
			}
			k := copy(c.hdr[c.have:want], b)
			c.have += k
			b = b[k:]
			if c.have < want {
				continue
			}
			c.have = 0
			if c.state == fsMagic {
				if c.frames > 0 {
					return fmt.Errorf("%w: data follows the archive's zstd frame", ErrCorrupt)
				}
				if binary.LittleEndian.Uint32(c.hdr[:]) != zstdMagic {
					return fmt.Errorf("%w: not a zstd frame", ErrCorrupt)
				}
				c.state = fsDesc
				continue
			}
			v := uint32(c.hdr[0]) | uint32(c.hdr[1])<<8 | uint32(c.hdr[2])<<16
			c.last = v&1 == 1
			size := int64(v >> 3)
			switch (v >> 1) & 3 {
			case 1: // RLE: one byte repeated size times
				c.need = 1
			case 3:
				return fmt.Errorf("%w: reserved zstd block type", ErrCorrupt)
			default:
				c.need = size
			}
			if size > maxBlockSize {
				return fmt.Errorf("%w: zstd block of %d bytes", ErrCorrupt, size)
			}
			c.state = fsBlock
			if c.need == 0 {
				c.endBlock()
			}
		case fsDesc:
			d := b[0]
			b = b[1:]
			if d&0x08 != 0 {
				return fmt.Errorf("%w: reserved bit set in zstd frame header", ErrCorrupt)
			}
			single := d&0x20 != 0
			c.sum = d&0x04 != 0
			var n int64
			if !single {
				n++ // window descriptor
			}
			n += [4]int64{0, 1, 2, 4}[d&3] // dictionary id
			switch fcs := d >> 6; {
			case fcs == 0 && single:
				n++
			case fcs > 0:
				n += [4]int64{0, 2, 4, 8}[fcs]
			}
			c.need = n
			c.state = fsSkip
			if n == 0 {
				c.state = fsBlockHdr
			}
		case fsSkip, fsBlock, fsChecksum:
			k := min(int64(len(b)), c.need)
			c.need -= k
			b = b[k:]
			if c.need > 0 {
				continue
			}
			switch c.state {
			case fsSkip:
				c.state = fsBlockHdr
			case fsBlock:
				c.endBlock()
			case fsChecksum:
				c.endFrame()
			}
		}
	}
	return nil
}

func (c *frameChecker) endBlock() {
	switch {
	case !c.last:
		c.state = fsBlockHdr
	case c.sum:
		c.state, c.need = fsChecksum, 4
	default:
		c.endFrame()
	}
}

func (c *frameChecker) endFrame() {
	c.frames++
	c.state = fsMagic
}
