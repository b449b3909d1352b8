package httpx

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/pkg/config"
)

// bodyTimeoutError is a request body that did not arrive in time: 408, and the connection is
// closed (what is left of the body is never read).
type bodyTimeoutError struct{ after time.Duration }

func (e *bodyTimeoutError) Error() string {
	return fmt.Sprintf("the request body did not arrive within %s at the minimum transfer rate", e.after.Round(time.Millisecond))
}

// deadlines holds a request body to a deadline that moves with progress: the body has
// BodyTimeout, plus one second per MinBodyRate bytes received. A client trickling a byte a
// second is cut after about BodyTimeout; an upload keeping the rate goes on for as long as it
// needs. The response's write deadline follows the body's end, so a long upload still gets its
// answer.
type deadlines struct {
	body, write time.Duration
	rate        int64
}

func newDeadlines(h config.HTTP) deadlines {
	return deadlines{body: h.BodyTimeout, write: h.WriteTimeout, rate: h.MinBodyRate}
}

// wrap installs the deadline on the request body of c.
func (d deadlines) wrap(c echo.Context) {
	req := c.Request()
	if d.body <= 0 || req.Body == nil || req.Body == http.NoBody {
		return
	}
	req.Body = &deadlineBody{rc: req.Body, ctl: http.NewResponseController(c.Response()), d: d, start: time.Now()}
}

// streamResponses lifts the write deadline of an operation answering with an event stream:
// it writes for as long as the client listens.
func streamResponses(c echo.Context, op *openapi3.Operation) {
	if streams(op) {
		_ = http.NewResponseController(c.Response()).SetWriteDeadline(time.Time{})
	}
}

// streams reports whether op answers with an event stream (text/event-stream).
func streams(op *openapi3.Operation) bool {
	if op.Responses == nil {
		return false
	}
	for _, r := range op.Responses.Map() {
		if r.Value == nil {
			continue
		}
		for mt := range r.Value.Content {
			if strings.HasPrefix(mt, "text/event-stream") {
				return true
			}
		}
	}
	return false
}

type deadlineBody struct {
	rc    io.ReadCloser
	ctl   *http.ResponseController
	d     deadlines
	start time.Time
	read  int64
	set   time.Time // the read deadline in force
	done  bool
}

func (b *deadlineBody) deadline() time.Time {
	t := b.start.Add(b.d.body)
	if b.d.rate > 0 {
		t = t.Add(time.Duration(float64(b.read) / float64(b.d.rate) * float64(time.Second)))
	}
	return t
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	if b.done {
		return b.rc.Read(p)
	}
	// Moving the deadline costs a timer update: do it when it moved by a tenth of a second.
	if t := b.deadline(); t.Sub(b.set) > 100*time.Millisecond || b.set.IsZero() {
		if err := b.ctl.SetReadDeadline(t); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return 0, err
		}
		if b.d.write > 0 {
			_ = b.ctl.SetWriteDeadline(t.Add(b.d.write))
		}
		b.set = t
	}
	n, err := b.rc.Read(p)
	b.read += int64(n)
	if errors.Is(err, io.EOF) {
		b.finish()
	}
	var ne net.Error
	if err != nil && (errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())) {
		return n, &bodyTimeoutError{after: time.Since(b.start)}
	}
	return n, err
}

// finish lifts the read deadline (the server's background read of the connection needs none)
// and gives the response its own write time from now.
func (b *deadlineBody) finish() {
	b.done = true
	_ = b.ctl.SetReadDeadline(time.Time{})
	if b.d.write > 0 {
		_ = b.ctl.SetWriteDeadline(time.Now().Add(b.d.write))
	}
}

func (b *deadlineBody) Close() error { return b.rc.Close() }
