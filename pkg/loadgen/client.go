// Package loadgen is the HTTP side of the benchmarks' load generators: a client that spends as
// little CPU per request as HTTP allows, so that the service it measures, on the same cores,
// keeps them.
package loadgen

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

// Client sends requests over one kept-alive HTTP/1.1 connection and reads each answer only
// as far as HTTP needs: the status, the framing of the body, then the body discarded through a
// large buffer, as pgbench discards rows. net/http's client costs more CPU per request than a
// service's own work on the smaller responses (two goroutines per connection, a request and a
// response object, an 8 KiB copy loop), and a load generator shares the cores with the service
// it measures. A Client is used by one goroutine at a time.
type Client struct {
	addr    string
	host    string
	token   string
	timeout time.Duration
	request []byte
	conn    net.Conn
	r       *bufio.Reader
}

// readBuffer is large enough that a 600 KB body is read in a few system calls.
const readBuffer = 256 << 10

// NewClient is a client of the service at base (http://host:port), authenticated with the
// bearer token (none when empty); it dials on its first request.
func NewClient(base, token string, timeout time.Duration) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("%s: the load generator speaks plain http only", base)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	return &Client{addr: addr, host: u.Host, token: token, timeout: timeout}, nil
}

// Do sends method target (a path with its query) with body, as JSON when there is one, reads
// the whole response and returns its status. After an error the connection is closed; the
// next call dials again.
func (c *Client) Do(method, target string, body []byte) (int, error) {
	c.request = append(c.request[:0], method...)
	c.request = append(c.request, ' ')
	c.request = append(c.request, target...)
	c.request = append(c.request, " HTTP/1.1\r\nHost: "...)
	c.request = append(c.request, c.host...)
	if c.token != "" {
		c.request = append(c.request, "\r\nAuthorization: Bearer "...)
		c.request = append(c.request, c.token...)
	}
	c.request = append(c.request, "\r\nAccept: application/json\r\n"...)
	if body != nil {
		c.request = append(c.request, "Content-Type: application/json\r\nContent-Length: "...)
		c.request = strconv.AppendInt(c.request, int64(len(body)), 10)
		c.request = append(c.request, "\r\n"...)
	}
	c.request = append(c.request, "\r\n"...)
	c.request = append(c.request, body...)
	status, keep, err := c.roundTrip()
	if err != nil || !keep {
		c.Close()
	}
	return status, err
}

// Close closes the connection, if one is open.
func (c *Client) Close() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn, c.r = nil, nil
	}
}

func (c *Client) roundTrip() (status int, keep bool, err error) {
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
