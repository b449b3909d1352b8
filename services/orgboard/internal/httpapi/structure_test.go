package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/orgboard"
)

func TestOwnersWriteTheStructureAndMembersRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c := e.client
	// A second division and a service product in it.
	media := e.division(w.ownerA, w.orgA.Id, "Media")
	svc := must[*orgboard.CreateProductResponse](t, 201)(c.CreateProductWithResponse(e.ctx, nil, orgboard.ProductCreate{
		OrganizationId: w.orgA.Id, DivisionId: &media.Id, Name: "Render", Kind: orgboard.ProductKindService, Description: ptr("renders"),
	}, as(w.ownerA))).JSON201
	if svc.Kind != orgboard.ProductKindService || *svc.DivisionId != media.Id || svc.IdentityVersion != 0 || svc.Description != "renders" {
		t.Fatalf("product %+v", svc)
	}
	divs := must[*orgboard.ListDivisionsResponse](t, 200)(c.ListDivisionsWithResponse(e.ctx, &orgboard.ListDivisionsParams{OrganizationId: w.orgA.Id}, as(w.memberA))).JSON200.Data
	if len(divs) != 2 || divs[0].Name != "Media" || divs[1].Name != "Studio" {
		t.Fatalf("divisions %+v", divs)
	}
	services := must[*orgboard.ListProductsResponse](t, 200)(c.ListProductsWithResponse(e.ctx, &orgboard.ListProductsParams{
		OrganizationId: w.orgA.Id, Kind: ptr(orgboard.ProductKindService)}, as(w.memberA))).JSON200.Data
	if len(services) != 1 || services[0].Id != svc.Id {
		t.Fatalf("services %+v", services)
	}
	inStudio := must[*orgboard.ListProductsResponse](t, 200)(c.ListProductsWithResponse(e.ctx, &orgboard.ListProductsParams{
		OrganizationId: w.orgA.Id, DivisionId: &w.divisionA.Id}, as(w.memberA))).JSON200.Data
	if len(inStudio) != 1 || inStudio[0].Id != w.productA.Id {
		t.Fatalf("products of the Studio division %+v", inStudio)
	}
	got := must[*orgboard.GetProductResponse](t, 200)(c.GetProductWithResponse(e.ctx, w.productA.Id, as(w.memberA))).JSON200
	if got.IdentityVersion != 1 {
		t.Fatalf("product %+v", got)
	}
	// A Member (and a Lead) gets 403 on structure writes; names are unique per organization.
	for _, m := range []caller{w.memberA, w.leadA} {
		must[*orgboard.CreateDivisionResponse](t, 403)(c.CreateDivisionWithResponse(e.ctx, nil, orgboard.DivisionCreate{OrganizationId: w.orgA.Id, Name: "X"}, as(m)))
		must[*orgboard.CreateProductResponse](t, 403)(c.CreateProductWithResponse(e.ctx, nil, orgboard.ProductCreate{OrganizationId: w.orgA.Id, Name: "X", Kind: orgboard.ProductKindProduct}, as(m)))
	}
	must[*orgboard.CreateDivisionResponse](t, 409)(c.CreateDivisionWithResponse(e.ctx, nil, orgboard.DivisionCreate{OrganizationId: w.orgA.Id, Name: "Media"}, as(w.ownerA)))
	must[*orgboard.CreateProductResponse](t, 409)(c.CreateProductWithResponse(e.ctx, nil, orgboard.ProductCreate{OrganizationId: w.orgA.Id, Name: "Render", Kind: orgboard.ProductKindProduct}, as(w.ownerA)))
	// Structure writes are audited.
	actions := strings.Join(auditActions(t, e, w.ownerA, w.orgA.Id), " ")
	for _, want := range []string{"division.created", "product.created", "product.identity.updated"} {
		if !strings.Contains(actions, want) {
			t.Errorf("no %s in the audit log: %s", want, actions)
		}
	}
}

func TestReferencesOutsideTheOrganizationAre400(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c := e.client
	cases := []struct {
		name  string
		field string
		call  func() (int, []byte, error)
	}{
		{"a product in another organization's division", "body.division_id", func() (int, []byte, error) {
			r, err := c.CreateProductWithResponse(e.ctx, nil, orgboard.ProductCreate{OrganizationId: w.orgA.Id, DivisionId: &w.divisionB.Id, Name: "X", Kind: orgboard.ProductKindProduct}, as(w.ownerA))
			return code(r, err)
		}},
		{"a product in a division that does not exist", "body.division_id", func() (int, []byte, error) {
			r, err := c.CreateProductWithResponse(e.ctx, nil, orgboard.ProductCreate{OrganizationId: w.orgA.Id, DivisionId: ptr(uuid.New()), Name: "X", Kind: orgboard.ProductKindProduct}, as(w.ownerA))
			return code(r, err)
		}},
		{"a team under another organization's product", "body.product_id", func() (int, []byte, error) {
			r, err := c.CreateTeamWithResponse(e.ctx, nil, orgboard.TeamCreate{OrganizationId: w.orgA.Id, ProductId: &w.productB.Id, Name: "X"}, as(w.ownerA))
			return code(r, err)
		}},
		{"a team under a product that does not exist", "body.product_id", func() (int, []byte, error) {
			r, err := c.CreateTeamWithResponse(e.ctx, nil, orgboard.TeamCreate{OrganizationId: w.orgA.Id, ProductId: ptr(uuid.New()), Name: "X"}, as(w.ownerA))
			return code(r, err)
		}},
		{"a work item whose parent is in another team", "body.parent_id", func() (int, []byte, error) {
			r, err := c.CreateTaskWithResponse(e.ctx, nil, orgboard.WorkItemCreate{TeamId: w.teamA1.Id, Type: orgboard.WorkItemTypeTask, Title: "X", ParentId: &w.taskA2.Id}, as(w.ownerA))
			return code(r, err)
		}},
		{"a work item whose parent is in another organization", "body.parent_id", func() (int, []byte, error) {
			r, err := c.CreateTaskWithResponse(e.ctx, nil, orgboard.WorkItemCreate{TeamId: w.teamA1.Id, Type: orgboard.WorkItemTypeTask, Title: "X", ParentId: &w.taskB.Id}, as(w.ownerA))
			return code(r, err)
		}},
		{"a human seat for a user outside the organization", "body.user_id", func() (int, []byte, error) {
			r, err := c.CreateSeatWithResponse(e.ctx, nil, orgboard.SeatCreate{TeamId: w.teamA1.Id, Title: "X", State: ptr(orgboard.SeatCreateStateHuman), UserId: &w.ownerB.user}, as(w.ownerA))
			return code(r, err)
		}},
		{"a Lead who is not a member", "path.user_id", func() (int, []byte, error) {
			r, err := c.SetTeamLeadWithResponse(e.ctx, w.teamA1.Id, w.ownerB.user, as(w.ownerA))
			return code(r, err)
		}},
		{"an assignee outside the organization", "body.assignee.id", func() (int, []byte, error) {
			r, err := c.AssignTaskWithResponse(e.ctx, w.taskA1.Id, orgboard.WorkItemAssign{Assignee: &orgboard.Assignee{Kind: orgboard.AssigneeKindUser, Id: w.ownerB.user}}, as(w.ownerA))
			return code(r, err)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body, err := tc.call()
			if err != nil {
				t.Fatal(err)
			}
			if status != 400 || !strings.Contains(string(body), `"field":"`+tc.field+`"`) {
				t.Fatalf("status %d body %s; want 400 naming %s", status, body, tc.field)
			}
		})
	}
}

func code[R statusCoder](r R, err error) (int, []byte, error) {
	if err != nil {
		return 0, nil, err
	}
	return r.StatusCode(), []byte(bodyOf(r)), nil
}

func TestTheProductIdentityIsVersionedAndNothingIsLost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c := e.client
	fresh := e.product(w.ownerA, w.orgA.Id, nil, "Fresh")
	empty := must[*orgboard.GetProductIdentityResponse](t, 200)(c.GetProductIdentityWithResponse(e.ctx, fresh.Id, as(w.memberA))).JSON200
	if empty.Version != 0 || empty.Content != "" || empty.UpdatedAt != nil || empty.UpdatedBy != nil {
		t.Fatalf("a never-set identity %+v", empty)
	}
	v1 := must[*orgboard.SetProductIdentityResponse](t, 200)(c.SetProductIdentityWithResponse(e.ctx, fresh.Id, orgboard.ProductIdentityPut{Content: "first", BaseVersion: ptr(int64(0))}, as(w.ownerA))).JSON200
	v2 := must[*orgboard.SetProductIdentityResponse](t, 200)(c.SetProductIdentityWithResponse(e.ctx, fresh.Id, orgboard.ProductIdentityPut{Content: "second"}, as(w.ownerA))).JSON200
	if v1.Version != 1 || v2.Version != 2 || *v2.UpdatedBy != w.ownerA.user {
		t.Fatalf("versions %+v %+v", v1, v2)
	}
	// A write based on a stale version is refused and changes nothing.
	must[*orgboard.SetProductIdentityResponse](t, 409)(c.SetProductIdentityWithResponse(e.ctx, fresh.Id, orgboard.ProductIdentityPut{Content: "lost update", BaseVersion: ptr(int64(1))}, as(w.ownerA)))
	// Only an Owner writes; a Member reads.
	must[*orgboard.SetProductIdentityResponse](t, 403)(c.SetProductIdentityWithResponse(e.ctx, fresh.Id, orgboard.ProductIdentityPut{Content: "x"}, as(w.memberA)))
	must[*orgboard.SetProductIdentityResponse](t, 403)(c.SetProductIdentityWithResponse(e.ctx, fresh.Id, orgboard.ProductIdentityPut{Content: "x"}, as(w.leadA)))
	cur := must[*orgboard.GetProductIdentityResponse](t, 200)(c.GetProductIdentityWithResponse(e.ctx, fresh.Id, as(w.memberA))).JSON200
	if cur.Content != "second" || cur.Version != 2 {
		t.Fatalf("current %+v", cur)
	}
	versions := must[*orgboard.ListProductIdentityVersionsResponse](t, 200)(c.ListProductIdentityVersionsWithResponse(e.ctx, fresh.Id, as(w.memberA))).JSON200.Data
	if len(versions) != 2 || versions[0].Content != "second" || versions[1].Content != "first" || versions[1].Version != 1 {
		t.Fatalf("versions %+v", versions)
	}
	product := must[*orgboard.GetProductResponse](t, 200)(c.GetProductWithResponse(e.ctx, fresh.Id, as(w.memberA))).JSON200
	if product.IdentityVersion != 2 {
		t.Fatalf("product identity_version %d", product.IdentityVersion)
	}
}

func TestAGuessUnderApiOrgboardForAPathOutsideItIsA404NamingThePath(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.user("owner")
	id := uuid.NewString()
	for _, tt := range []struct{ method, path, meant string }{
		{"GET", "/api/orgboard/products/" + id + "/identity", "/products/" + id + "/identity"},
		{"PUT", "/api/orgboard/products/" + id + "/identity", "/products/" + id + "/identity"},
		{"GET", "/api/orgboard/products/" + id + "/identity/versions", "/products/" + id + "/identity/versions"},
		{"GET", "/api/orgboard/governance/audit", "/api/governance/audit"},
		{"GET", "/api/orgboard/audit", "/api/governance/audit"},
	} {
		req, err := http.NewRequestWithContext(e.ctx, tt.method, e.base+tt.path, strings.NewReader(`{"content": "x"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+owner.token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var p orgboard.Problem
		if err := json.Unmarshal(body, &p); err != nil || resp.StatusCode != http.StatusNotFound ||
			resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("%s %s: %d %s", tt.method, tt.path, resp.StatusCode, body)
		}
		want := "nothing is served at " + tt.path + "; did you mean " + tt.meant + "?"
		if p.Detail == nil || *p.Detail != want || p.RequestId != resp.Header.Get("X-Request-Id") {
			t.Errorf("%s %s: problem %s, want detail %q and the request id", tt.method, tt.path, body, want)
		}
	}
}

func TestTheProductIdentityIsBoundedAt65536Characters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	atLimit := strings.Repeat("é", 65536) // 131072 bytes: the bound is in characters
	must[*orgboard.SetProductIdentityResponse](t, 200)(e.client.SetProductIdentityWithResponse(e.ctx, w.productA.Id, orgboard.ProductIdentityPut{Content: atLimit}, as(w.ownerA)))
	must[*orgboard.SetProductIdentityResponse](t, 400)(e.client.SetProductIdentityWithResponse(e.ctx, w.productA.Id, orgboard.ProductIdentityPut{Content: atLimit + "x"}, as(w.ownerA)))
}
