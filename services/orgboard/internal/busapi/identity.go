// Package busapi is the service's inbound bus port: it decodes the identity events the service
// consumes and hands them to internal/app, as httpapi does for HTTP requests.
package busapi

import (
	"context"
	"fmt"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// IdentityKeys are the routing keys the service queue is bound with for the identity events:
// a user's ban and a tenant's suspension keep the user out of every organization.
var IdentityKeys = []string{events.IdentityUserBannedV1, events.IdentityTenantSuspendedV1}

// IdentityApplier applies the identity events (app.App).
type IdentityApplier interface {
	ApplyUserBan(ctx context.Context, b domain.UserBan) error
	ApplyTenantSuspension(ctx context.Context, s domain.TenantSuspension) error
}

// IdentityHandlers are the handlers of IdentityKeys, for bus.Consume. A payload that does not
// conform to the AsyncAPI document is a Permanent error: the router dead-letters it at once
// with the validation's reason.
func IdentityHandlers(a IdentityApplier) bus.Handlers {
	return bus.Handlers{
		events.IdentityUserBannedV1: func(ctx context.Context, env events.EventEnvelope) error {
			p, err := decode[events.IdentityUserBannedV1Payload](env)
			if err != nil {
				return err
			}
			return a.ApplyUserBan(ctx, domain.UserBan{Event: eventOf(env), UserID: p.UserID, TenantID: p.TenantID,
				BannedBy: p.BannedBy, Reason: p.Reason, UnblockDate: p.UnblockDate})
		},
		events.IdentityTenantSuspendedV1: func(ctx context.Context, env events.EventEnvelope) error {
			p, err := decode[events.IdentityTenantSuspendedV1Payload](env)
			if err != nil {
				return err
			}
			at := env.EventTime
			if p.SuspendedAt != nil {
				at = *p.SuspendedAt
			}
			return a.ApplyTenantSuspension(ctx, domain.TenantSuspension{Event: eventOf(env), TenantID: p.TenantID,
				Reason: p.Reason, SuspendedAt: at.UTC()})
		},
	}
}

// decode validates env's producer and data against its event type's schema; a failure is
// Permanent, with the validation's message (which names each field) as its reason.
func decode[P events.Payload](env events.EventEnvelope) (P, error) {
	var zero P
	if want := events.ProducerOf(env.EventType); env.Producer != nil && want != "" && string(*env.Producer) != want {
		return zero, bus.Permanent(fmt.Errorf("invalid %s: producer: must be %s", env.EventType, want))
	}
	p, err := events.Decode(env.EventType, env.Data)
	if err != nil {
		return zero, bus.Permanent(fmt.Errorf("invalid %s: %w", env.EventType, err))
	}
	v, ok := p.(P)
	if !ok {
		return zero, bus.Permanent(fmt.Errorf("invalid %s: payload of type %T", env.EventType, p))
	}
	return v, nil
}

func eventOf(env events.EventEnvelope) domain.IdentityEvent {
	return domain.IdentityEvent{ID: env.EventID, Time: env.EventTime.UTC()}
}
