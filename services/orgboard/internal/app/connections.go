package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// ApiConfigInput is a new model connection; APIKey is write-only.
type ApiConfigInput struct {
	OrganizationID uuid.UUID
	Name           string
	Provider       string
	Endpoint       *string
	Model          string
	APIKey         *string
}

// CreateApiConfig creates a model connection (ManageApiKeys). The key is sealed, bound to the
// connection's id.
func (a *App) CreateApiConfig(ctx context.Context, actor domain.Actor, in ApiConfigInput) (domain.ApiConfig, error) {
	c := domain.ApiConfig{ID: a.newID(), OrganizationID: in.OrganizationID, Name: strings.TrimSpace(in.Name),
		Provider: in.Provider, Model: strings.TrimSpace(in.Model), CreatedBy: createdBy(actor), CreatedAt: a.now()}
	var fields []errs.FieldError
	if c.Name == "" {
		fields = append(fields, errs.Field("body.name", "must not be blank"))
	}
	if c.Model == "" {
		fields = append(fields, errs.Field("body.model", "must not be blank"))
	}
	if !domain.KnownProvider(c.Provider) {
		fields = append(fields, errs.Field("body.provider", "is not a known provider"))
	}
	switch {
	case in.Endpoint != nil && strings.TrimSpace(*in.Endpoint) != "":
		ep := strings.TrimRight(strings.TrimSpace(*in.Endpoint), "/")
		if c.Provider == domain.ProviderStub {
			fields = append(fields, errs.Field("body.endpoint", "the stub provider takes no endpoint"))
		} else if err := a.urls.CheckURL(ctx, ep); err != nil {
			fields = append(fields, errs.Field("body.endpoint", err.Error()))
		}
		c.Endpoint = &ep
	case domain.ProviderNeedsEndpoint(c.Provider):
		fields = append(fields, errs.Field("body.endpoint", "is required for provider "+c.Provider))
	case c.Provider != domain.ProviderStub:
		ep := domain.DefaultEndpoint(c.Provider)
		c.Endpoint = &ep
	}
	if len(fields) > 0 {
		return domain.ApiConfig{}, errs.InvalidFields(fields...)
	}
	if in.APIKey != nil && *in.APIKey != "" {
		sealed, err := a.sealer.Seal([]byte(*in.APIKey), apiKeyBinding(c.ID))
		if err != nil {
			return domain.ApiConfig{}, err
		}
		c.KeySealed = sealed
		hint := domain.KeyHint(*in.APIKey)
		c.KeyHint = &hint
	}
	err := a.store.InTx(ctx, func(s domain.Store) error {
		if _, err := a.authorizeOrg(ctx, s, actor, c.OrganizationID, domain.ManageApiKeys); err != nil {
			return err
		}
		if err := s.InsertApiConfig(ctx, c); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionApiConfigCreated, Scope: domain.OrgScope(c.OrganizationID),
			TargetType: domain.TargetApiConfig, TargetID: c.ID,
			After: map[string]any{"name": c.Name, "provider": c.Provider, "endpoint": c.Endpoint, "model": c.Model,
				"key_stored": c.KeySealed != nil},
		})
	})
	return c, err
}

// ListApiConfigs lists an organization's model connections (to bind them to agents).
func (a *App) ListApiConfigs(ctx context.Context, actor domain.Actor, org uuid.UUID) ([]domain.ApiConfig, error) {
	s := a.store
	if err := a.authorizeBinding(ctx, s, actor, org); err != nil {
		return nil, err
	}
	return s.ListApiConfigs(ctx, org)
}

// DeleteApiConfig deletes a model connection (ManageApiKeys); Conflict while an agent uses it.
func (a *App) DeleteApiConfig(ctx context.Context, actor domain.Actor, id uuid.UUID) error {
	return a.store.InTx(ctx, func(s domain.Store) error {
		c, err := s.GetApiConfig(ctx, id)
		if err != nil {
			return err
		}
		if _, err := a.authorize(ctx, s, actor, domain.OrgScope(c.OrganizationID), domain.ManageApiKeys, "model connection"); err != nil {
			return err
		}
		if err := s.DeleteApiConfig(ctx, id); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionApiConfigDeleted, Scope: domain.OrgScope(c.OrganizationID),
			TargetType: domain.TargetApiConfig, TargetID: c.ID,
			Before: map[string]any{"name": c.Name, "provider": c.Provider, "model": c.Model},
		})
	})
}

// connection opens a model connection's key.
func (a *App) connection(c domain.ApiConfig) (domain.ModelConnection, error) {
	conn := domain.ModelConnection{Provider: c.Provider, Model: c.Model}
	if c.Endpoint != nil {
		conn.Endpoint = *c.Endpoint
	}
	if c.KeySealed != nil {
		key, err := a.sealer.Open(c.KeySealed, apiKeyBinding(c.ID))
		if err != nil {
			return conn, fmt.Errorf("model connection %s: %w", c.ID, err)
		}
		conn.APIKey = string(key)
	}
	return conn, nil
}

func apiKeyBinding(id uuid.UUID) string { return "api_config:" + id.String() }
