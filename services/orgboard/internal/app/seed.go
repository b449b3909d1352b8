package app

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// The users of the demo data; `orgboard token --sub <id>` mints their tokens.
var (
	DemoOwner  = uuid.MustParse("00000000-0000-7000-8000-00000000000a")
	DemoLead   = uuid.MustParse("00000000-0000-7000-8000-00000000000b")
	DemoMember = uuid.MustParse("00000000-0000-7000-8000-00000000000c")
)

// DemoOrganizationName names the demo organization; seeding again finds it and changes nothing.
const DemoOrganizationName = "Demo Studio"

// SeedResult tells what a seed made (printed as JSON by `orgboard seed`).
type SeedResult struct {
	OrganizationID uuid.UUID   `json:"organization_id"`
	OwnerID        uuid.UUID   `json:"owner_id"`
	LeadID         uuid.UUID   `json:"lead_id,omitempty"`
	MemberID       uuid.UUID   `json:"member_id"`
	TeamIDs        []uuid.UUID `json:"team_ids"`
	Tasks          int         `json:"tasks"`
	Created        bool        `json:"created"`
}

// SeedDemo creates the demo organization through the ordinary commands (so it is audited like
// any other data): a division, a product and a service with an identity, three teams, a Lead,
// seats of each kind but ai, and a board with work in every column. Idempotent.
func (a *App) SeedDemo(ctx context.Context) (SeedResult, error) {
	res := SeedResult{OwnerID: DemoOwner, LeadID: DemoLead, MemberID: DemoMember}
	owner, lead, member := domain.UserActor(DemoOwner), domain.UserActor(DemoLead), domain.UserActor(DemoMember)
	orgs, err := a.ListOrganizations(ctx, owner)
	if err != nil {
		return res, err
	}
	for _, o := range orgs {
		if o.Name == DemoOrganizationName {
			res.OrganizationID = o.ID
			teams, err := a.ListTeams(ctx, owner, &o.ID, nil)
			for _, t := range teams {
				res.TeamIDs = append(res.TeamIDs, t.ID)
			}
			return res, err
		}
	}
	res.Created = true
	org, err := a.CreateOrganization(ctx, owner, DemoOrganizationName)
	if err != nil {
		return res, err
	}
	res.OrganizationID = org.ID
	for _, u := range []domain.Actor{lead, member} {
		uid := u.UserID
		inv, err := a.CreateInvitation(ctx, owner, org.ID, InviteInput{UserID: &uid, Role: domain.RoleMember})
		if err != nil {
			return res, err
		}
		if _, err := a.AcceptInvitation(ctx, u, inv.ID, nil); err != nil {
			return res, err
		}
	}
	div, err := a.CreateDivision(ctx, owner, org.ID, "Studio", "Everything that makes videos")
	if err != nil {
		return res, err
	}
	editor, err := a.CreateProduct(ctx, owner, org.ID, ProductInput{DivisionID: &div.ID, Name: "Template Editor", Kind: domain.KindProduct,
		Description: "The browser editor for video templates"})
	if err != nil {
		return res, err
	}
	farm, err := a.CreateProduct(ctx, owner, org.ID, ProductInput{DivisionID: &div.ID, Name: "Render Farm", Kind: domain.KindService,
		Description: "Renders projects into videos"})
	if err != nil {
		return res, err
	}
	if _, err := a.SetProductIdentity(ctx, owner, editor.ID, demoIdentity, nil); err != nil {
		return res, err
	}
	var teams []domain.Team
	for _, t := range []struct {
		name    string
		product *uuid.UUID
	}{{"Editor", &editor.ID}, {"Render", &farm.ID}, {"Platform", nil}} {
		team, err := a.CreateTeam(ctx, owner, org.ID, t.name, t.product)
		if err != nil {
			return res, err
		}
		teams = append(teams, team)
		res.TeamIDs = append(res.TeamIDs, team.ID)
	}
	editorTeam := teams[0]
	if _, err := a.SetTeamLead(ctx, owner, editorTeam.ID, DemoLead); err != nil {
		return res, err
	}
	for _, s := range []SeatInput{
		{TeamID: editorTeam.ID, Title: "Product owner", State: domain.SeatHuman, UserID: &res.OwnerID},
		{TeamID: editorTeam.ID, Title: "Frontend engineer", State: domain.SeatHuman, UserID: &res.MemberID},
		{TeamID: editorTeam.ID, Title: "QA engineer", State: domain.SeatOpen},
		{TeamID: editorTeam.ID, Title: "Backend engineer", State: domain.SeatOpen},
	} {
		if _, err := a.CreateSeat(ctx, lead, s); err != nil {
			return res, err
		}
	}
	epic, err := a.CreateTask(ctx, owner, TaskInput{TeamID: editorTeam.ID, Type: "epic", Title: "Colour presets"})
	if err != nil {
		return res, err
	}
	items := []struct {
		title string
		kind  domain.TaskType
		path  []domain.Status
		who   *domain.Assignee
	}{
		{"Preset picker in the toolbar", "story", nil, &domain.Assignee{Kind: domain.AssigneeUser, ID: DemoMember}},
		{"Save a preset from the current palette", "story", []domain.Status{domain.StatusInProgress}, &domain.Assignee{Kind: domain.AssigneeUser, ID: DemoMember}},
		{"Preset colours drift after export", "bug", []domain.Status{domain.StatusInProgress, domain.StatusInReview}, &domain.Assignee{Kind: domain.AssigneeUser, ID: DemoLead}},
		{"Preset API endpoints", "task", []domain.Status{domain.StatusInProgress, domain.StatusInReview, domain.StatusDone}, &domain.Assignee{Kind: domain.AssigneeUser, ID: DemoOwner}},
		{"Document presets for template authors", "task", nil, nil},
	}
	for _, it := range items {
		w, err := a.CreateTask(ctx, member, TaskInput{TeamID: editorTeam.ID, Type: it.kind, Title: it.title, ParentID: &epic.ID})
		if err != nil {
			return res, err
		}
		for _, st := range it.path {
			if _, err := a.MoveTask(ctx, member, w.ID, st); err != nil {
				return res, err
			}
		}
		if it.who != nil {
			if _, err := a.AssignTask(ctx, lead, w.ID, it.who); err != nil {
				return res, err
			}
		}
	}
	res.Tasks = len(items) + 1
	return res, nil
}

const demoIdentity = `# Template Editor

The Template Editor lets marketing teams turn After Effects templates into their own videos in
the browser: swap texts, colours and media, preview, then render.

## Voice
Plain, friendly, brief. No jargon towards customers.

## Non-goals
Not a general-purpose video editor; no timeline editing.
`

// SeedBench creates an organization of teams teams holding items tasks in total (spread
// evenly, all in progress so that a benchmark can move them back and forth), plus a Member.
// The tasks are bulk-loaded (COPY) without audit entries: they are fixtures, not actions.
func (a *App) SeedBench(ctx context.Context, owner, memberID uuid.UUID, teams, items int) (SeedResult, error) {
	if teams < 1 || items < 0 {
		return SeedResult{}, errs.E(errs.Invalid, "teams must be at least 1 and items not negative")
	}
	res := SeedResult{OwnerID: owner, MemberID: memberID, Tasks: items, Created: true}
	actor := domain.UserActor(owner)
	org, err := a.CreateOrganization(ctx, actor, fmt.Sprintf("Bench %s", time.Now().UTC().Format(time.RFC3339)))
	if err != nil {
		return res, err
	}
	res.OrganizationID = org.ID
	inv, err := a.CreateInvitation(ctx, actor, org.ID, InviteInput{UserID: &memberID, Role: domain.RoleMember})
	if err != nil {
		return res, err
	}
	if _, err := a.AcceptInvitation(ctx, domain.UserActor(memberID), inv.ID, nil); err != nil {
		return res, err
	}
	for i := range teams {
		t, err := a.CreateTeam(ctx, actor, org.ID, fmt.Sprintf("Team %02d", i+1), nil)
		if err != nil {
			return res, err
		}
		res.TeamIDs = append(res.TeamIDs, t.ID)
	}
	base := a.now()
	batch := make([]domain.Task, 0, items)
	for i := range items {
		at := base.Add(time.Duration(i) * time.Microsecond)
		batch = append(batch, domain.Task{
			ID: a.newID(), OrganizationID: org.ID, TeamID: res.TeamIDs[i%teams], Type: "task",
			Title: fmt.Sprintf("Work item %d", i+1), Description: "Seeded for the board benchmark.",
			Status: domain.StatusInProgress, CreatedBy: owner, CreatedAt: at, UpdatedAt: at,
		})
	}
	err = a.store.InTx(ctx, func(s domain.Store) error {
		_, err := s.CopyTasks(ctx, batch)
		return err
	})
	return res, err
}
