package httpapi_test

import (
	"testing"

	"github.com/videotpl/platform/gen/orgboard"
)

func TestTasksStartInTheBacklogAndKeepTheirParentInTheTeam(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	child := e.task(w.memberA, w.teamA1.Id, &w.taskA1.Id, "child")
	if child.Status != orgboard.WorkItemStatusBacklog || child.Assignee != nil || *child.ParentId != w.taskA1.Id ||
		child.CreatedBy != w.memberA.user || child.OrganizationId != w.orgA.Id || child.Type != orgboard.WorkItemTypeTask {
		t.Fatalf("work item %+v", child)
	}
	got := must[*orgboard.GetTaskResponse](t, 200)(e.client.GetTaskWithResponse(e.ctx, child.Id, as(w.leadA))).JSON200
	if got.Id != child.Id || !got.CreatedAt.Equal(child.CreatedAt) {
		t.Fatalf("read back %+v", got)
	}
}

func TestTheBoardHasTheFourColumnsInOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c := e.client
	second := e.task(w.memberA, w.teamA1.Id, nil, "second")
	must[*orgboard.MoveTaskResponse](t, 200)(c.MoveTaskWithResponse(e.ctx, second.Id, orgboard.WorkItemMove{Status: orgboard.WorkItemStatusInProgress}, as(w.memberA)))
	board := must[*orgboard.GetBoardResponse](t, 200)(c.GetBoardWithResponse(e.ctx, &orgboard.GetBoardParams{TeamId: w.teamA1.Id}, as(w.memberA))).JSON200
	want := []struct {
		status orgboard.WorkItemStatus
		title  orgboard.BoardColumnTitle
		items  int
	}{
		{orgboard.WorkItemStatusBacklog, "backlog", 1},
		{orgboard.WorkItemStatusInProgress, "in progress", 1},
		{orgboard.WorkItemStatusInReview, "in review", 0},
		{orgboard.WorkItemStatusDone, "done", 0},
	}
	if board.TeamId != w.teamA1.Id || len(board.Columns) != 4 {
		t.Fatalf("board %+v", board)
	}
	for i, col := range board.Columns {
		if col.Status != want[i].status || col.Title != want[i].title || len(col.Items) != want[i].items {
			t.Errorf("column %d: %s %q with %d items, want %s %q with %d", i, col.Status, col.Title, len(col.Items), want[i].status, want[i].title, want[i].items)
		}
	}
	if board.Columns[0].Items[0].Id != w.taskA1.Id || board.Columns[1].Items[0].Id != second.Id {
		t.Fatal("items are in the wrong columns")
	}
}

func TestMovesFollowTheTransitionsAndAreAudited(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c := e.client
	move := func(to orgboard.WorkItemStatus, want int) *orgboard.MoveTaskResponse {
		t.Helper()
		return must[*orgboard.MoveTaskResponse](t, want)(c.MoveTaskWithResponse(e.ctx, w.taskA1.Id, orgboard.WorkItemMove{Status: to}, as(w.memberA)))
	}
	move(orgboard.WorkItemStatusDone, 409)       // backlog -> done skips the work
	move(orgboard.WorkItemStatusInReview, 409)   // backlog -> in review too
	move(orgboard.WorkItemStatusInProgress, 200) // backlog -> in progress
	move(orgboard.WorkItemStatusBacklog, 200)    // back to the backlog
	move(orgboard.WorkItemStatusInProgress, 200)
	move(orgboard.WorkItemStatusInReview, 200)
	move(orgboard.WorkItemStatusBacklog, 409) // in review -> backlog is not a step
	done := move(orgboard.WorkItemStatusDone, 200).JSON200
	if done.Status != orgboard.WorkItemStatusDone || !done.UpdatedAt.After(w.taskA1.UpdatedAt) {
		t.Fatalf("moved item %+v", done)
	}
	move(orgboard.WorkItemStatusDone, 200) // to the current status: a no-op
	move(orgboard.WorkItemStatusInReview, 409)
	move(orgboard.WorkItemStatusInProgress, 200) // reopen
	page := must[*orgboard.ListAuditEntriesResponse](t, 200)(c.ListAuditEntriesWithResponse(e.ctx, &orgboard.ListAuditEntriesParams{
		OrganizationId: w.orgA.Id, Action: ptr("task.moved"), TargetId: &w.taskA1.Id}, as(w.ownerA))).JSON200
	// Six effective moves; refused moves and the no-op wrote nothing.
	if len(page.Data) != 6 {
		t.Fatalf("%d task.moved entries, want 6", len(page.Data))
	}
	last := page.Data[0]
	if (*last.Before)["status"] != "done" || (*last.After)["status"] != "in_progress" || *last.ActorId != w.memberA.user ||
		last.ScopeType != orgboard.AuditEntryScopeTypeTeam || last.ScopeId != w.teamA1.Id || last.TargetType != "work_item" {
		t.Fatalf("last move entry %+v", last)
	}
}

func TestAssignedWorkAppearsInTheAssigneesCartable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c := e.client
	assign := func(item orgboard.WorkItem, a *orgboard.Assignee, want int) *orgboard.AssignTaskResponse {
		t.Helper()
		return must[*orgboard.AssignTaskResponse](t, want)(c.AssignTaskWithResponse(e.ctx, item.Id, orgboard.WorkItemAssign{Assignee: a}, as(w.leadA)))
	}
	toMember := &orgboard.Assignee{Kind: orgboard.AssigneeKindUser, Id: w.memberA.user}
	got := assign(w.taskA1, toMember, 200).JSON200
	if got.Assignee == nil || *got.Assignee != *toMember {
		t.Fatalf("assigned %+v", got)
	}
	finished := e.task(w.ownerA, w.teamA2.Id, nil, "finished")
	assign(finished, toMember, 200)
	for _, s := range []orgboard.WorkItemStatus{"in_progress", "in_review", "done"} {
		must[*orgboard.MoveTaskResponse](t, 200)(c.MoveTaskWithResponse(e.ctx, finished.Id, orgboard.WorkItemMove{Status: s}, as(w.ownerA)))
	}
	cart := must[*orgboard.GetCartableResponse](t, 200)(c.GetCartableWithResponse(e.ctx, &orgboard.GetCartableParams{}, as(w.memberA))).JSON200
	if cart.UserId != w.memberA.user || len(cart.Items) != 1 || cart.Items[0].Id != w.taskA1.Id {
		t.Fatalf("cartable %+v", cart)
	}
	withDone := must[*orgboard.GetCartableResponse](t, 200)(c.GetCartableWithResponse(e.ctx, &orgboard.GetCartableParams{IncludeDone: ptr(true), OrganizationId: &w.orgA.Id}, as(w.memberA))).JSON200
	if len(withDone.Items) != 2 || withDone.Items[0].Id != finished.Id {
		t.Fatalf("cartable with done items, newest update first: %+v", withDone.Items)
	}
	if other := must[*orgboard.GetCartableResponse](t, 200)(c.GetCartableWithResponse(e.ctx, &orgboard.GetCartableParams{}, as(w.leadA))).JSON200; len(other.Items) != 0 {
		t.Fatalf("the Lead's cartable holds %d items", len(other.Items))
	}
	if other := must[*orgboard.GetCartableResponse](t, 200)(c.GetCartableWithResponse(e.ctx, &orgboard.GetCartableParams{OrganizationId: &w.orgB.Id}, as(w.memberA))).JSON200; len(other.Items) != 0 {
		t.Fatalf("a cartable filtered on another organization holds %d items", len(other.Items))
	}
	// Unassigning takes it out again.
	if got := assign(w.taskA1, nil, 200).JSON200; got.Assignee != nil {
		t.Fatalf("unassigned %+v", got)
	}
	if cart := must[*orgboard.GetCartableResponse](t, 200)(c.GetCartableWithResponse(e.ctx, &orgboard.GetCartableParams{}, as(w.memberA))).JSON200; len(cart.Items) != 0 {
		t.Fatalf("cartable after unassigning %+v", cart.Items)
	}
	page := must[*orgboard.ListAuditEntriesResponse](t, 200)(c.ListAuditEntriesWithResponse(e.ctx, &orgboard.ListAuditEntriesParams{
		OrganizationId: w.orgA.Id, Action: ptr("task.assigned"), TargetId: &w.taskA1.Id}, as(w.ownerA))).JSON200
	if len(page.Data) != 2 || (*page.Data[0].Before)["assignee"] == nil || (*page.Data[0].After)["assignee"] != nil {
		t.Fatalf("assignment entries %+v", page.Data)
	}
}

func TestWorkCanBeAssignedToAnAISeatOfTheTeamOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c := e.client
	toSeat := &orgboard.Assignee{Kind: orgboard.AssigneeKindSeat, Id: w.seatA1.Id}
	// An open seat is not an assignee.
	must[*orgboard.AssignTaskResponse](t, 400)(c.AssignTaskWithResponse(e.ctx, w.taskA1.Id, orgboard.WorkItemAssign{Assignee: toSeat}, as(w.memberA)))
	e.flipSeatToAI(w.seatA1.Id)
	got := must[*orgboard.AssignTaskResponse](t, 200)(c.AssignTaskWithResponse(e.ctx, w.taskA1.Id, orgboard.WorkItemAssign{Assignee: toSeat}, as(w.memberA))).JSON200
	if got.Assignee.Kind != orgboard.AssigneeKindSeat || got.Assignee.Id != w.seatA1.Id {
		t.Fatalf("assigned %+v", got.Assignee)
	}
	// An ai seat of another team is not either.
	must[*orgboard.AssignTaskResponse](t, 400)(c.AssignTaskWithResponse(e.ctx, w.taskA2.Id, orgboard.WorkItemAssign{Assignee: toSeat}, as(w.memberA)))
}
