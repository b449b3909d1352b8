// Package outbound posts webhook requests to tenants' endpoints through the outbound
// policy: the policy is checked on the address each connection is actually made to (after
// DNS resolution), so a name that resolves to an internal address at delivery time is
// refused even if it was public when the endpoint was registered.
package outbound

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"

	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// UserAgent names the service to receivers.
const UserAgent = "videotpl-renderevents-webhooks/1"

// ErrRefused wraps a connection the outbound policy refused.
var ErrRefused = errors.New("refused by the outbound policy")

// Sender posts webhooks with a client that never follows redirects, uses no proxy and
// dials only addresses the policy allows.
type Sender struct {
	client *http.Client
}

// NewSender returns a sender for policy.
func NewSender(policy domain.OutboundPolicy) *Sender {
	dialer := &net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s", ErrRefused, address)
			}
			if err := policy.CheckIP(ap.Addr()); err != nil {
				return fmt.Errorf("%w: %w", ErrRefused, err)
			}
			return nil
		},
	}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would dial on our behalf, past the policy
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 15 * time.Second,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
	}
	return &Sender{client: &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Send implements app.Sender: POST the body with the Standard Webhooks headers.
func (s *Sender) Send(ctx context.Context, r app.WebhookRequest) (int, error) {
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
