package main

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/pkg/auth/authtest"
)

func TestARetriedOrganizationCreationWithOneIdempotencyKeyCreatesOneOrganization(t *testing.T) {
	ctx := context.Background()
	s := serve(t)
	client, issuer := s.client, s.issuer

	user := authtest.Bearer(issuer.Token(t, authtest.Subject(uuid.New()), authtest.Tenant(uuid.New())))
	key := uuid.NewString()
	var ids []uuid.UUID
	for range 2 {
		r, err := client.CreateOrganizationWithResponse(ctx, &orgboard.CreateOrganizationParams{IdempotencyKey: &key},
			orgboard.OrganizationCreate{Name: "Acme"}, user)
		if err != nil || r.StatusCode() != http.StatusCreated || r.JSON201 == nil {
			t.Fatalf("create: %v %d %s", err, r.StatusCode(), r.Body)
		}
		ids = append(ids, r.JSON201.Id)
	}
	if ids[0] != ids[1] {
		t.Fatalf("the retry created organization %s besides %s; want the first answer again", ids[1], ids[0])
	}
	list, err := client.ListOrganizationsWithResponse(ctx, user)
	if err != nil || list.JSON200 == nil || len(list.JSON200.Data) != 1 {
		t.Fatalf("list: %v %d %s, want the one organization", err, list.StatusCode(), list.Body)
	}
}
