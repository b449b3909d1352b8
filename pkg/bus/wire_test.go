package bus

import (
	"bytes"
	"errors"
	"net"
	"testing"
)

// recordingConn is a socket that records each write it is given.
type recordingConn struct {
	net.Conn
	writes [][]byte
	err    error
}

func (c *recordingConn) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	c.writes = append(c.writes, bytes.Clone(p))
	return len(p), nil
}

// TestAGatheringConnWritesABatchAtOnce: writes pass through one by one, except between gather
// and flush, where they reach the socket as one write in the order made; a failed flush
// reports the socket's error and lets writes through again.
func TestAGatheringConnWritesABatchAtOnce(t *testing.T) {
	sock := &recordingConn{}
	c := &gatheringConn{Conn: sock}
	write := func(s string) {
		t.Helper()
		if n, err := c.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	write("a")
	c.gather()
	write("b")
	write("c")
	write("d")
	if len(sock.writes) != 1 {
		t.Fatalf("while gathering the socket got %q; want only the write before", sock.writes)
	}
	if err := c.flush(); err != nil {
		t.Fatal(err)
	}
	write("e")
	if err := c.flush(); err != nil { // nothing gathered: nothing written
		t.Fatal(err)
	}
	want := []string{"a", "bcd", "e"}
	if len(sock.writes) != len(want) {
		t.Fatalf("socket writes %q, want %q", sock.writes, want)
	}
	for i, w := range want {
		if string(sock.writes[i]) != w {
			t.Fatalf("socket writes %q, want %q", sock.writes, want)
		}
	}

	sock.err = errors.New("connection reset")
	c.gather()
	write("f")
	if err := c.flush(); !errors.Is(err, sock.err) {
		t.Fatalf("flush on a broken socket: %v, want its error", err)
	}
	if _, err := c.Write([]byte("g")); !errors.Is(err, sock.err) {
		t.Fatalf("a write after the flush: %v, want it to reach the socket", err)
	}
}
