package postgres

// Parked connections. A read-only store transaction ends with a ROLLBACK,
// a round trip of its own; a recall runs ten of them. Instead, the
// connection of a finished read-only transaction is parked, its
// transaction still open, and the next store transaction on this server
// that takes it sends the ROLLBACK in the same round trip as its BEGIN
// (kvTx.begin). A connection parked for parkIdle is rolled back and goes
// back to the pool, so that an idle server holds no transaction open: an
// open read-only transaction holds back vacuum's horizon and its tables'
// share locks (a TRUNCATE waits for it), for parkIdle at most.

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	// parkMax is how many connections wait parked at most.
	parkMax = 4
	// parkIdle is how long a connection waits parked.
	parkIdle = 20 * time.Millisecond
)

// parking holds a DB's parked connections, the most recent last. It is
// safe for concurrent use.
type parking struct {
	mu     sync.Mutex
	conns  []*pgxpool.Conn
	closed bool
}

// park parks conn, whose read-only transaction is done; when the parking
// is full or closed, it rolls conn's transaction back and releases it.
func (p *parking) park(conn *pgxpool.Conn) {
	p.mu.Lock()
	if p.closed || len(p.conns) >= parkMax {
		p.mu.Unlock()
		rollBack(conn)
		return
	}
	p.conns = append(p.conns, conn)
	p.mu.Unlock()
	time.AfterFunc(parkIdle, func() {
		if p.take(conn) {
			rollBack(conn)
		}
	})
}

// take removes conn from the parking, and reports whether it was there.
func (p *parking) take(conn *pgxpool.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, c := range p.conns {
		if c == conn {
			p.conns = append(p.conns[:i], p.conns[i+1:]...)
			return true
		}
	}
	return false
}

// unpark returns the most recently parked connection, whose transaction
// its caller must roll back first, or nil.
func (p *parking) unpark() *pgxpool.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.conns)
	if n == 0 {
		return nil
	}
	c := p.conns[n-1]
	p.conns = p.conns[:n-1]
	return c
}

// close rolls back and releases every parked connection; later ones are
// not parked.
func (p *parking) close() {
	p.mu.Lock()
	conns := p.conns
	p.conns, p.closed = nil, true
	p.mu.Unlock()
	for _, c := range conns {
		rollBack(c)
	}
}

// rollBack ends conn's transaction and releases conn. Should the rollback
// fail, the pool closes the connection, which is still in a transaction,
// instead of handing it out again.
func rollBack(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn.Exec(ctx, "ROLLBACK")
	conn.Release()
}
