package domain

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	mrand "math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// Webhook rules (Standard Webhooks).
const (
	// SecretPrefix starts every signing secret; the rest is base64 of the key.
	SecretPrefix = "whsec_"
	// SecretOverlap is how long the previous secret still signs after a rotation.
	SecretOverlap = 24 * time.Hour
	// DisableAfterFailures is the number of deliveries in a row that failed after all
	// their retries after which an endpoint is disabled.
	DisableAfterFailures = 10
	// MaxEventTypes bounds an endpoint's filter.
	MaxEventTypes = 50
)

// DefaultRetrySchedule is the pause before each retry after a failed attempt: 8 attempts
// over about a day.
var DefaultRetrySchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// DeliveryStatus is the state of one delivery of an event to an endpoint.
type DeliveryStatus string

// Delivery states.
const (
	DeliveryPending   DeliveryStatus = "pending"
	DeliveryRetrying  DeliveryStatus = "retrying"
	DeliverySucceeded DeliveryStatus = "succeeded"
	DeliveryFailed    DeliveryStatus = "failed"
)

// Endpoint is a tenant's webhook endpoint. Secret and PreviousSecret are the plain
// signing secrets ("whsec_..."): they leave the service only in the create and rotate
// answers.
type Endpoint struct {
	ID                      uuid.UUID
	TenantID                uuid.UUID
	URL                     string
	EventTypes              []string
	Description             string
	Enabled                 bool
	DisabledReason          *string
	Secret                  string
	PreviousSecret          string
	PreviousSecretExpiresAt *time.Time
	SecretRotatedAt         *time.Time
	ConsecutiveFailures     int
	CreatedAt               time.Time
	UpdatedAt               time.Time
}

// SigningSecrets are the secrets that sign a delivery at now: the current one first, then
// the previous one during the rotation overlap.
func (e Endpoint) SigningSecrets(now time.Time) []string {
	out := []string{e.Secret}
	if e.PreviousSecret != "" && e.PreviousSecretExpiresAt != nil && now.Before(*e.PreviousSecretExpiresAt) {
		out = append(out, e.PreviousSecret)
	}
	return out
}

// Delivery is one delivery of an event to an endpoint.
type Delivery struct {
	ID            uuid.UUID
	EndpointID    uuid.UUID
	TenantID      uuid.UUID
	EventID       uuid.UUID
	EventType     string
	Body          []byte
	Status        DeliveryStatus
	Attempts      int
	ResponseCode  *int
	LatencyMS     *int
	LastError     *string
	NextAttemptAt *time.Time
	LastAttemptAt *time.Time
	ReplayOf      *uuid.UUID
	CreatedAt     time.Time
}

// NewSecret returns a fresh signing secret: whsec_ + base64 of 32 random bytes.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// secretKey is the HMAC key of a secret: the base64-decoded part after whsec_.
func secretKey(secret string) ([]byte, error) {
	raw, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, errors.New("webhook secret must start with " + SecretPrefix)
	}
	return base64.StdEncoding.DecodeString(raw)
}

// Sign returns the Standard Webhooks signature "v1,<base64 HMAC-SHA256>" of
// "{msgID}.{timestamp}.{body}" under secret.
func Sign(secret, msgID string, timestamp time.Time, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msgID))
	mac.Write([]byte("."))
	mac.Write([]byte(strconv.FormatInt(timestamp.Unix(), 10)))
	mac.Write([]byte("."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// SignatureHeader is the webhook-signature header value: one signature per secret,
// space-separated, in the order given (current secret first).
func SignatureHeader(secrets []string, msgID string, timestamp time.Time, body []byte) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		sig, err := Sign(s, msgID, timestamp, body)
		if err != nil {
			return "", err
		}
		sigs = append(sigs, sig)
	}
	return strings.Join(sigs, " "), nil
}

// SigningKeys are an endpoint's HMAC keys, decoded from its secrets once for all the deliveries
// they sign: the dispatcher signs every delivery of a claim to one endpoint with the same keys.
// They may sign concurrently.
type SigningKeys struct {
	current, previous signingKey
	previousErr       error // the previous secret does not decode: signing fails while it would sign
	previousExpiresAt *time.Time
}

// SigningKeys decodes the keys of the endpoint's secrets.
func (e Endpoint) SigningKeys() (SigningKeys, error) {
	current, err := secretKey(e.Secret)
	if err != nil {
		return SigningKeys{}, err
	}
	k := SigningKeys{current: newSigningKey(current)}
	if e.PreviousSecret != "" && e.PreviousSecretExpiresAt != nil {
		var previous []byte
		if previous, k.previousErr = secretKey(e.PreviousSecret); k.previousErr == nil {
			k.previous = newSigningKey(previous)
		}
		k.previousExpiresAt = e.PreviousSecretExpiresAt
	}
	return k, nil
}

// SignatureHeader is the webhook-signature header value of a delivery signed at timestamp:
// what SignatureHeader writes for the endpoint's SigningSecrets(timestamp).
func (k SigningKeys) SignatureHeader(msgID string, timestamp time.Time, body []byte) (string, error) {
	previous := k.previousExpiresAt != nil && timestamp.Before(*k.previousExpiresAt)
	if previous && k.previousErr != nil {
		return "", k.previousErr
	}
	signed := make([]byte, 0, len(msgID)+22)
	signed = strconv.AppendInt(append(append(signed, msgID...), '.'), timestamp.Unix(), 10)
	signed = append(signed, '.')
	const sigLen = len("v1,") + (sha256.Size+2)/3*4
	b := make([]byte, 0, 2*sigLen+1)
	b = k.current.appendSignature(b, signed, body)
	if previous {
		b = k.previous.appendSignature(append(b, ' '), signed, body)
	}
	return string(b), nil
}

// signingKey is an HMAC-SHA256 key with its padded key blocks hashed once: each signature
// starts from a copy of that state.
type signingKey struct {
	key    []byte
	primed hash.Cloner // nil where the hash cannot be copied: each signature starts from the key
}

func newSigningKey(key []byte) signingKey {
	mac := hmac.New(sha256.New, key)
	mac.Reset() // keeps the state after the padded key blocks, which Clone copies
	primed, _ := mac.(hash.Cloner)
	return signingKey{key: key, primed: primed}
}

// appendSignature appends "v1,<base64 HMAC-SHA256 of prefix and body>".
func (k signingKey) appendSignature(b, prefix, body []byte) []byte {
	var mac hash.Hash
	if k.primed != nil {
		if c, err := k.primed.Clone(); err == nil {
			mac = c
		}
	}
	if mac == nil {
		mac = hmac.New(sha256.New, k.key)
	}
	mac.Write(prefix)
	mac.Write(body)
	var sum [sha256.Size]byte
	return base64.StdEncoding.AppendEncode(append(b, "v1,"...), mac.Sum(sum[:0]))
}

// Verify checks a webhook-signature header against secret, as a receiver does: true when
// any of its v1 signatures matches.
func Verify(secret, msgID string, timestamp time.Time, body []byte, header string) bool {
	want, err := Sign(secret, msgID, timestamp, body)
	if err != nil {
		return false
	}
	for _, sig := range strings.Fields(header) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

var eventTypePattern = regexp.MustCompile(`^(\*|[a-z0-9_]+(\.[a-z0-9_]+)*(\.\*)?)$`)

// ValidateEventTypes checks an endpoint's filter: 1 to 50 entries, each an event name, a
// prefix ending in ".*", or "*".
func ValidateEventTypes(field string, types []string) error {
	if len(types) == 0 || len(types) > MaxEventTypes {
		return errs.InvalidFields(errs.Field(field, fmt.Sprintf("must list 1 to %d event types", MaxEventTypes)))
	}
	for i, t := range types {
		if !eventTypePattern.MatchString(t) {
			return errs.InvalidFields(errs.Field(fmt.Sprintf("%s[%d]", field, i), "must be an event name, a prefix ending in .* or *"))
		}
	}
	return nil
}

// MatchesEventType reports whether an endpoint with filter types receives eventType.
// Progress ticks are never delivered.
func MatchesEventType(types []string, eventType string) bool {
	if eventType == ProgressEventType {
		return false
	}
	for _, t := range types {
		switch {
		case t == "*", t == eventType:
			return true
		case strings.HasSuffix(t, ".*") && strings.HasPrefix(eventType, strings.TrimSuffix(t, "*")):
			return true
		}
	}
	return false
}

// RetryPolicy says when a failed delivery is tried again.
type RetryPolicy struct {
	// Schedule holds the pause before each retry; its length + 1 is the number of attempts.
	Schedule []time.Duration
}

// MaxAttempts is the number of attempts before a delivery fails for good.
func (p RetryPolicy) MaxAttempts() int { return len(p.Schedule) + 1 }

// NextDelay returns the pause after the attempts-th failed attempt, with jitter (uniform
// in [d/2, 3d/2), so that retries of many deliveries spread out around the schedule);
// ok is false when no attempt is left.
func (p RetryPolicy) NextDelay(attempts int) (time.Duration, bool) {
	if attempts < 1 || attempts > len(p.Schedule) {
		return 0, false
	}
	d := p.Schedule[attempts-1]
	if d <= 0 {
		return 0, true
	}
	return d/2 + mrand.N(d), true
}

// WebhookStore keeps endpoints and deliveries. Endpoint secrets pass through it in plain
// form; it seals them at rest.
type WebhookStore interface {
	CreateEndpoint(ctx context.Context, ep Endpoint) (Endpoint, error)
	GetEndpoint(ctx context.Context, id uuid.UUID) (Endpoint, error)
	ListEndpoints(ctx context.Context, tenant *uuid.UUID, p Page) ([]Endpoint, error)
	// UpdateEndpoint runs change on the locked endpoint and saves the result.
	UpdateEndpoint(ctx context.Context, id uuid.UUID, change func(*Endpoint) error) (Endpoint, error)
	RotateSecret(ctx context.Context, id uuid.UUID, secret string, previousExpiresAt, now time.Time) (Endpoint, error)
	// DeleteEndpoint deletes the endpoint and gives up its pending deliveries.
	DeleteEndpoint(ctx context.Context, id uuid.UUID, now time.Time) error
	ListDeliveries(ctx context.Context, endpoint uuid.UUID, status *string, p Page) ([]Delivery, error)
	GetDelivery(ctx context.Context, id uuid.UUID) (Delivery, error)
	InsertReplay(ctx context.Context, original Delivery, id uuid.UUID, now time.Time) (Delivery, error)
}

// DispatchTarget is an endpoint as the dispatcher needs it.
type DispatchTarget struct {
	Endpoint        Endpoint
	Deleted         bool
	TenantSuspended bool
}

// AttemptRecord is the outcome of handling one claimed delivery.
type AttemptRecord struct {
	DeliveryID    uuid.UUID
	EndpointID    uuid.UUID
	Status        DeliveryStatus
	Attempted     bool // an HTTP attempt was made (counts in attempts)
	ResponseCode  *int
	LatencyMS     *int
	LastError     *string
	NextAttemptAt *time.Time
	At            time.Time
	// Succeeded resets the endpoint's failure count; Exhausted (retries used up) adds one,
	// and at the threshold the endpoint is disabled and its pending deliveries given up.
	Succeeded bool
	Exhausted bool
}

// DispatchStore is what the dispatcher needs from the store.
type DispatchStore interface {
	// ClaimDue leases up to n due deliveries until leaseUntil (FOR UPDATE SKIP LOCKED, so
	// several instances share the work), the longest due first, in the order their events
	// were consumed. Each carries what an attempt needs: ID, EndpointID, EventID, Body and
	// Attempts.
	ClaimDue(ctx context.Context, now, leaseUntil time.Time, n int) ([]Delivery, error)
	DispatchTargets(ctx context.Context, endpoints []uuid.UUID) (map[uuid.UUID]DispatchTarget, error)
	// RecordAttempts records the outcomes of a batch, given in the order the attempts ended,
	// in one transaction; disableAfter is the number of deliveries in a row out of retries
	// that disables an endpoint.
	RecordAttempts(ctx context.Context, recs []AttemptRecord, disableAfter int) error
	// PurgeDeleted removes endpoints deleted before, with their deliveries.
	PurgeDeleted(ctx context.Context, before time.Time) (int64, error)
}

// WebhookRequest is one signed POST of an event to an endpoint.
type WebhookRequest struct {
	URL       string
	ID        string // webhook-id: the event id, the same on retries and replays
	Timestamp time.Time
	Signature string
	Body      []byte
}

// WebhookSender posts webhook requests (through the outbound policy) and returns the status.
type WebhookSender interface {
	Send(ctx context.Context, req WebhookRequest) (status int, err error)
}
