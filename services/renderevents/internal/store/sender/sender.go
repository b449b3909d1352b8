// Package sender posts webhook deliveries to tenants' endpoints with the Standard Webhooks headers, through the egress policy.
package sender

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"

	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// UserAgent names the service to receivers.
const UserAgent = "videotpl-renderevents-webhooks/1"

// Sender posts webhooks with a client that dials only addresses the policy allows (checked on
// the address each connection is made to, so a name that resolves inside at delivery time is
// refused even if it was public at registration), uses no proxy and never follows redirects.
type Sender struct {
	client *http.Client
}

// New returns a sender for policy that keeps up to conns idle connections per endpoint host:
// the dispatcher's workers, so that workers all busy with one endpoint reuse their connections
// instead of dialling (and, over TLS, handshaking) again. The dispatcher bounds each attempt's time.
func New(policy *egress.Policy, conns int) *Sender {
	transport := policy.Transport()
	transport.MaxIdleConnsPerHost = max(transport.MaxIdleConnsPerHost, conns)
	client := &http.Client{Transport: transport,
		// A redirect is the receiver's answer (not a 2xx), never a second target to call.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Sender{client: client}
}

// Send implements domain.WebhookSender: POST the body with the Standard Webhooks headers. A connection
// the policy refuses is an error wrapping egress.ErrDenied.
func (s *Sender) Send(ctx context.Context, r domain.WebhookRequest) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return 0, err
	}
	req.Header = header(r)
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.Body != http.NoBody { // an empty answer has nothing to read
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	}
	return resp.StatusCode, nil
}

// header is the request's Standard Webhooks header, its names in the canonical form Header.Set
// would give them (the same bytes on the wire), its values in one array.
func header(r domain.WebhookRequest) http.Header {
	v := [...]string{"application/json", UserAgent, r.ID, strconv.FormatInt(r.Timestamp.Unix(), 10), r.Signature}
	return http.Header{"Content-Type": v[0:1:1], "User-Agent": v[1:2:2], "Webhook-Id": v[2:3:3],
		"Webhook-Timestamp": v[3:4:4], "Webhook-Signature": v[4:5:5]}
}
