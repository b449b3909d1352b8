package main

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"

	api "github.com/videotpl/platform/gen/renderevents"
	"github.com/videotpl/platform/pkg/auth/authtest"
)

func TestARetriedEndpointRegistrationWithOneIdempotencyKeyCreatesOneEndpoint(t *testing.T) {
	h := start(t)
	ctx := context.Background()
	tok := authtest.Bearer(h.token(uuid.New()))
	key := uuid.NewString()
	body := api.WebhookEndpointCreate{Url: "http://127.0.0.1:1/hook", EventTypes: []string{"*"}}
	var answers []*api.WebhookEndpointWithSecret
	for range 2 {
		r, err := h.client.CreateWebhookEndpointWithResponse(ctx, &api.CreateWebhookEndpointParams{IdempotencyKey: &key}, body, tok)
		if err != nil || r.JSON201 == nil {
			t.Fatalf("create: %v %d %s", err, r.StatusCode(), r.Body)
		}
		answers = append(answers, r.JSON201)
	}
	if answers[0].Id != answers[1].Id || answers[0].Secret != answers[1].Secret {
		t.Fatalf("the retry answered endpoint %s, the first %s: want the first answer again", answers[1].Id, answers[0].Id)
	}
	list, err := h.client.ListWebhookEndpointsWithResponse(ctx, &api.ListWebhookEndpointsParams{}, tok)
	if err != nil || list.JSON200 == nil || len(list.JSON200.Data) != 1 {
		t.Fatalf("list: %v %d %s, want the one endpoint", err, list.StatusCode(), list.Body)
	}

	// A rotated secret is not lost to a retry: the retry answers the same secret.
	rotateKey := uuid.NewString()
	var secrets []string
	for range 2 {
		r, err := h.client.RotateWebhookEndpointSecretWithResponse(ctx, answers[0].Id,
			&api.RotateWebhookEndpointSecretParams{IdempotencyKey: &rotateKey}, tok)
		if err != nil || r.StatusCode() != http.StatusOK || r.JSON200 == nil {
			t.Fatalf("rotate: %v %d %s", err, r.StatusCode(), r.Body)
		}
		secrets = append(secrets, r.JSON200.Secret)
	}
	if secrets[0] != secrets[1] || secrets[0] == answers[0].Secret {
		t.Fatalf("rotations with one key answered %q then %q; want one new secret", secrets[0], secrets[1])
	}
}
