package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	api "github.com/videotpl/platform/gen/renderevents"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

func testTheReadAPIShowsEachCallerItsTenantOnly(t *testing.T, h *harness) {
	mine, theirs := uuid.New(), uuid.New()
	var msgs []sim.Message
	var myJobs []uuid.UUID
	for i := 0; i < 5; i++ {
		m := queued(t, mine)
		msgs = append(msgs, m)
		if i == 0 {
			msgs = append(msgs, queued(t, theirs))
		}
	}
	h.publish(msgs)
	h.waitApplied(msgs...)
	ctx := context.Background()
	me := authtest.Bearer(h.token(mine))

	// Pages of 2 of my 5 jobs, newest first, never a job of the other tenant.
	limit := 2
	var cursor *string
	seen := map[uuid.UUID]bool{}
	var last time.Time
	for page := 0; ; page++ {
		r, err := h.client.ListRenderJobsWithResponse(ctx, &api.ListRenderJobsParams{Limit: &limit, Cursor: cursor}, me)
		if err != nil || r.JSON200 == nil {
			t.Fatalf("page %d: %v %s", page, err, r.Body)
		}
		for _, j := range r.JSON200.Data {
			if j.TenantId != mine || seen[j.JobId] {
				t.Fatalf("job %s of tenant %s on page %d", j.JobId, j.TenantId, page)
			}
			if !last.IsZero() && j.CreatedAt.After(last) {
				t.Errorf("jobs are not newest first")
			}
			last = j.CreatedAt
			seen[j.JobId] = true
			myJobs = append(myJobs, j.JobId)
		}
		if cursor = r.JSON200.NextCursor; cursor == nil {
			break
		}
	}
	if len(seen) != 5 {
		t.Fatalf("%d of my 5 jobs listed", len(seen))
	}

	state := api.JobStateQueued
	cases := []struct {
		name   string
		call   func() (int, error)
		status int
	}{
		{"a cursor used with other filters is refused", func() (int, error) {
			r, err := h.client.ListRenderJobsWithResponse(ctx, &api.ListRenderJobsParams{Limit: &limit}, me)
			if err != nil {
				return 0, err
			}
			r2, err := h.client.ListRenderJobsWithResponse(ctx, &api.ListRenderJobsParams{Cursor: r.JSON200.NextCursor, State: &state}, me)
			return r2.StatusCode(), err
		}, http.StatusBadRequest},
		{"another tenant's job is not found", func() (int, error) {
			r, err := h.client.GetRenderJobWithResponse(ctx, myJobs[0], authtest.Bearer(h.token(theirs)))
			return r.StatusCode(), err
		}, http.StatusNotFound},
		{"a user may not name a tenant", func() (int, error) {
			r, err := h.client.ListRenderJobsWithResponse(ctx, &api.ListRenderJobsParams{TenantId: &mine}, me)
			return r.StatusCode(), err
		}, http.StatusForbidden},
		{"an admin names any tenant", func() (int, error) {
			r, err := h.client.ListRenderJobsWithResponse(ctx, &api.ListRenderJobsParams{TenantId: &theirs}, h.admin())
			if err == nil && (r.JSON200 == nil || len(r.JSON200.Data) != 1) {
				return 0, nil
			}
			return r.StatusCode(), err
		}, http.StatusOK},
		{"a service token with renderevents:read reads", func() (int, error) {
			r, err := h.client.GetRenderJobWithResponse(ctx, myJobs[0], authtest.Bearer(h.readerToken))
			return r.StatusCode(), err
		}, http.StatusOK},
		{"a service token without the scope is forbidden", func() (int, error) {
			r, err := h.client.GetRenderJobWithResponse(ctx, myJobs[0], authtest.Bearer(h.blindToken))
			return r.StatusCode(), err
		}, http.StatusForbidden},
		{"a reader service token may not register webhooks", func() (int, error) {
			r, err := h.client.CreateWebhookEndpointWithResponse(ctx, &api.CreateWebhookEndpointParams{TenantId: &mine},
				api.WebhookEndpointCreate{Url: "https://hooks.example.com/x", EventTypes: []string{"*"}}, authtest.Bearer(h.readerToken))
			return r.StatusCode(), err
		}, http.StatusForbidden},
		{"no token is unauthenticated", func() (int, error) {
			r, err := h.client.GetRenderJobWithResponse(ctx, myJobs[0])
			return r.StatusCode(), err
		}, http.StatusUnauthorized},
		{"an unknown job is not found", func() (int, error) {
			r, err := h.client.GetRenderJobTimelineWithResponse(ctx, uuid.New(), me)
			return r.StatusCode(), err
		}, http.StatusNotFound},
		{"a user sees only its own tenant in the tenant list", func() (int, error) {
			r, err := h.client.ListTenantsWithResponse(ctx, &api.ListTenantsParams{}, me)
			if err == nil && (r.JSON200 == nil || len(r.JSON200.Data) != 0) { // no identity event told about it
				return 0, nil
			}
			return r.StatusCode(), err
		}, http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, err := tc.call()
			if err != nil || status != tc.status {
				t.Fatalf("status %d err %v, want %d", status, err, tc.status)
			}
		})
	}
}
