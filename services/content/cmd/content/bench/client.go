package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"time"
)

// client sends one prepared GET over one kept-alive HTTP/1.1 connection and reads the answer
// only as far as HTTP needs: the status, the framing of the body, then the body discarded
// through a large buffer, as pgbench discards rows. net/http's client costs more CPU per
// request than the service's own work on the smaller responses (two goroutines per
// connection, a request and a response object, an 8 KiB copy loop), and the load generator
// shares the cores with the service it measures.
type client struct {
	addr    string
	request []byte
	timeout time.Duration
	conn    net.Conn
	r       *bufio.Reader
}

// readBuffer is large enough that a 600 KB body is read in a few system calls.
const readBuffer = 256 << 10

func newClient(target, token string, timeout time.Duration) (*client, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("%s: the load generator speaks plain http only", target)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "80")
	}
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nAuthorization: Bearer " + token +
		"\r\nAccept: application/json\r\n\r\n"
	return &client{addr: host, request: []byte(req), timeout: timeout}, nil
}

// do sends the request and reads the whole response, returning its status. After an error
// the connection is closed; the next call dials again.
func (c *client) do() (int, error) {
	status, keep, err := c.roundTrip()
	if err != nil || !keep {
		c.close()
	}
	return status, err
}

func (c *client) close() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn, c.r = nil, nil
	}
}

func (c *client) roundTrip() (status int, keep bool, err error) {
	if c.conn == nil {
		if c.conn, err = net.DialTimeout("tcp", c.addr, c.timeout); err != nil {
			return 0, false, err
		}
		c.r = bufio.NewReaderSize(c.conn, readBuffer)
	}
	if err := c.conn.SetDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, false, err
	}
	if _, err := c.conn.Write(c.request); err != nil {
		return 0, false, err
	}
	return readResponse(c.r)
}

var errMalformed = errors.New("malformed HTTP response")

// readResponse reads one HTTP/1.1 response from r, discarding its body, and reports its
// status and whether the connection may carry another request.
func readResponse(r *bufio.Reader) (status int, keep bool, err error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	// "HTTP/1.1 200 OK\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, false, errMalformed
	}
	if status, err = strconv.Atoi(string(line[9:12])); err != nil {
		return 0, false, errMalformed
	}
	length, chunked, keep := int64(-1), false, true
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return 0, false, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, false, errMalformed
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.ParseInt(string(value), 10, 64); err != nil || length < 0 {
				return 0, false, errMalformed
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			keep = !bytes.EqualFold(value, []byte("close"))
		}
	}
	switch {
	case chunked:
		err = discardChunks(r)
	case length >= 0:
		_, err = r.Discard(int(length))
	default:
		// Neither framing: the body runs to the end of the connection.
		_, err = io.Copy(io.Discard, r)
		keep = false
	}
	return status, keep && err == nil, err
}

// discardChunks reads a chunked body (its sizes, data and trailers) and drops it.
func discardChunks(r *bufio.Reader) error {
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return err
		}
		size, _, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(";"))
		n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 16, 64)
		if err != nil || n < 0 {
			return errMalformed
		}
		if n == 0 {
			for { // trailers, up to the empty line
				line, err := r.ReadSlice('\n')
				if err != nil {
					return err
				}
				if len(bytes.TrimRight(line, "\r\n")) == 0 {
					return nil
				}
			}
		}
		if _, err := r.Discard(int(n) + 2); err != nil { // the data and its CRLF
			return err
		}
	}
}
