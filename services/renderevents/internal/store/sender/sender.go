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
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("webhook-id", r.ID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(r.Timestamp.Unix(), 10))
	req.Header.Set("webhook-signature", r.Signature)
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	return resp.StatusCode, nil
}
