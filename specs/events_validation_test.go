package specs

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
)

const (
	id1 = "0190d6b2-4c1e-7a3b-9f21-2b7c9d0e1f10"
	id2 = "0190d6b2-4c1e-7a3b-9f21-2b7c9d0e1f11"
	ts  = "2025-03-01T12:00:00Z"
)

// validPayloads holds one valid data object per event of the AsyncAPI document.
var validPayloads = map[string]string{
	events.RenderJobQueuedV1:           `{"render_job_id":"` + id1 + `","saved_project_id":"` + id2 + `","priority_queue":"vip","price_type":"Cash","region":"eu","priority_score":100,"paid_price_minor":1999,"duration_sec":12.5,"is_60_fps":true}`,
	events.RenderJobStartedV1:          `{"render_job_id":"` + id1 + `","started_at":"` + ts + `","node_ids":["` + id2 + `"],"total_frames":300}`,
	events.RenderJobProgressV1:         `{"render_job_id":"` + id1 + `","step":"Rendering","progress":0,"current_frame":null,"eta_seconds":12,"message":null}`,
	events.RenderJobCompletedV1:        `{"render_job_id":"` + id1 + `","export_id":"` + id2 + `","output_url":"s3://out/x.mp4","duration_sec":30,"size_bytes":9007199254740993,"thumbnail_url":null,"node_ids_used":[]}`,
	events.RenderJobFailedV1:           `{"render_job_id":"` + id1 + `","failed_at_step":"Mixing","error_message":"boom","error_code":null,"retry_count":3}`,
	events.RenderJobCancelledV1:        `{"render_job_id":"` + id1 + `","cancelled_by_user_id":"` + id2 + `","cancelled_at_step":"Video","refund_required":false}`,
	events.RenderSnapshotRequestedV1:   `{"snapshot_id":"` + id1 + `","saved_project_id":"` + id2 + `","scene_key":"intro","frame_number":12,"cached":false}`,
	events.RenderSnapshotReadyV1:       `{"snapshot_id":"` + id1 + `","image_url":"https://cdn/x.png","thumbnail_url":null,"expires_at":"` + ts + `"}`,
	events.IdentityUserRegisteredV1:    `{"user_id":"` + id1 + `","tenant_id":"` + id2 + `","register_mode":"SSO","email":null,"affiliate_owner_id":null}`,
	events.IdentityUserEmailVerifiedV1: `{"user_id":"` + id1 + `","email":"a@b.c"}`,
	events.IdentityUserBannedV1:        `{"user_id":"` + id1 + `","banned_by":"` + id2 + `","reason":"spam","unblock_date":null}`,
	events.IdentityTenantCreatedV1:     `{"tenant_id":"` + id1 + `","slug":"acme","kind":"Enterprise","contact_email":null}`,
	events.IdentityTenantSuspendedV1:   `{"tenant_id":"` + id1 + `","reason":"unpaid","suspended_at":"` + ts + `"}`,
	events.IdentityPlanActivatedV1:     `{"user_id":"` + id1 + `","user_plan_id":"` + id2 + `","plan_code":"pro","expires_at":"` + ts + `","payment_id":null,"parallel_renders":2}`,
	events.IdentityPlanExpiredV1:       `{"user_id":"` + id1 + `","user_plan_id":"` + id2 + `","days_overdue":3}`,
	events.IdentityPaymentSucceededV1:  `{"payment_id":"` + id1 + `","user_id":"` + id2 + `","amount_minor":500,"gateway":"CardGateway","action":"ProjectRender","gateway_track_id":null,"plan_id":null}`,
	events.IdentityPaymentFailedV1:     `{"payment_id":"` + id1 + `","user_id":"` + id2 + `","gateway":"anything","failure_reason":"declined"}`,
	events.IdentityPaymentRefundedV1:   `{"payment_id":"` + id1 + `","user_id":"` + id2 + `","refund_amount_minor":500,"reason":"render failed","refunded_to":"OriginalMethod"}`,
	events.IdentityApiKeyCreatedV1:     `{"api_key_id":"` + id1 + `","tenant_id":"` + id2 + `","name":"ci","environment":"Test","created_by_user_id":"` + id1 + `","scopes":["render:write"]}`,
	events.IdentityApiKeyRevokedV1:     `{"api_key_id":"` + id1 + `","tenant_id":"` + id2 + `","revoked_by_user_id":"` + id1 + `","reason":"leaked"}`,
	events.ContentSvgPreviewGeneratedV1: `{"svg_preview_id":"` + id1 + `","target_type":"scene","target_id":"` + id2 + `","project_id":null,"scene_id":"` + id2 +
		`","status":"Failed","svg_url":null,"thumbnail_url":null,"source_image_url":"https://cdn/in.png","quality_score":null,"generated_by_ai":false,"error":"no zones","color_zone_count":0}`,
	events.OrgboardOrganizationCreatedV1:     orgboardPayload(`"after_name":"x"`),
	events.OrgboardInvitationCreatedV1:       orgboardPayload(`"after_role":"Member","after_expires_at":"` + ts + `","after_email":"a@b.c"`),
	events.OrgboardMemberJoinedV1:            orgboardPayload(``),
	events.OrgboardTeamCreatedV1:             orgboardPayload(`"after_name":"Board","after_product_id":null`),
	events.OrgboardTeamLeadAssignedV1:        orgboardPayload(``),
	events.OrgboardTeamLeadRemovedV1:         orgboardPayload(``),
	events.OrgboardDivisionCreatedV1:         orgboardPayload(`"after_name":"x"`),
	events.OrgboardProductCreatedV1:          orgboardPayload(`"after_name":"x"`),
	events.OrgboardProductIdentityUpdatedV1:  orgboardPayload(`"before_version":null,"after_version":1,"after_sha256":"ab"`),
	events.OrgboardSeatCreatedV1:             orgboardPayload(`"after_name":"x"`),
	events.OrgboardTaskCreatedV1:             orgboardPayload(`"after_name":"x"`),
	events.OrgboardTaskMovedV1:               orgboardPayload(`"before_status":"backlog","after_status":"in_progress"`),
	events.OrgboardTaskAssignedV1:            orgboardPayload(`"before_assignee_kind":null,"after_assignee_kind":"user","after_assignee_id":"` + id2 + `"`),
	events.OrgboardAgentConfiguredV1:         orgboardPayload(`"after_name":"Ada","after_skill_keys":["review"],"after_mcp_server_ids":["` + id2 + `"],"after_persona_chars":120`),
	events.OrgboardApiConfigCreatedV1:        orgboardPayload(`"after_name":"x"`),
	events.OrgboardApiConfigDeletedV1:        orgboardPayload(``),
	events.OrgboardToolServerCreatedV1:       orgboardPayload(`"after_name":"x"`),
	events.OrgboardToolServerDeletedV1:       orgboardPayload(``),
	events.OrgboardToolServerTestedV1:        orgboardPayload(``),
	events.OrgboardAgentProfileUploadedV1:    orgboardPayload(``),
	events.OrgboardAgentProfilePublishedV1:   orgboardPayload(``),
	events.OrgboardAgentProfileUnpublishedV1: orgboardPayload(``),
	events.OrgboardAgentProfileForkedV1:      orgboardPayload(``),
	events.OrgboardAgentProfileInstalledV1:   orgboardPayload(``),
	events.OrgboardAgentRunPreparedV1:        orgboardPayload(``),
	events.OrgboardAgentRunExecutedV1:        orgboardPayload(``),
	events.OrgboardAgentRunApprovedV1:        orgboardPayload(`"before_status":"drafted","after_status":"approved","after_edit_distance":0.25,"after_edit_distance_exact":true`),
	events.OrgboardToolCalledV1:              orgboardPayload(``),
}

// orgboardPayload is the data of an orgboard event: the ids, scope and actor every one carries,
// and fields (its before_/after_ state, without braces).
func orgboardPayload(fields string) string {
	common := `"audit_entry_id":"` + id1 + `","organization_id":"` + id2 + `","scope_type":"team","scope_id":"` + id1 +
		`","target_id":"` + id2 + `","actor_kind":"user","actor_id":"` + id1 + `","actor_name":null`
	if fields == "" {
		return "{" + common + "}"
	}
	return "{" + common + "," + fields + "}"
}

func TestEveryEventHasAValidPayloadThatDecodes(t *testing.T) {
	names := events.Names()
	if len(names) != 50 {
		t.Errorf("the document declares %d events, want 50 (20 of seed 001, content.svg_preview.generated.v1, 28 orgboard events, one per audit action, and orgboard.agent_run.state_changed.v1)", len(names))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			raw, ok := validPayloads[name]
			if !ok {
				t.Fatalf("no valid payload in this test for %s", name)
			}
			p, err := events.Decode(name, []byte(raw))
			if err != nil {
				t.Fatalf("valid payload refused: %v", err)
			}
			if p.EventType() != name {
				t.Errorf("decoded payload is for %s, want %s", p.EventType(), name)
			}
			// Encoding the decoded value and decoding it again gives the same value.
			b, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			again, err := events.Decode(name, b)
			if err != nil {
				t.Fatalf("re-encoded payload refused: %v\n%s", err, b)
			}
			b2, _ := json.Marshal(again)
			if string(b) != string(b2) {
				t.Errorf("round trip differs:\n%s\n%s", b, b2)
			}
		})
	}
}

// with returns the valid payload of event with field set to value (raw JSON), or removed when value is "".
func with(t *testing.T, event, field, value string) string {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(validPayloads[event]), &obj); err != nil {
		t.Fatal(err)
	}
	if value == "" {
		delete(obj, field)
	} else {
		obj[field] = json.RawMessage(value)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInvalidPayloadsAreRefusedNamingTheField(t *testing.T) {
	cases := []struct {
		name, event, field, value, wantField, wantMsg string
	}{
		{"a missing required uuid", events.RenderJobQueuedV1, "render_job_id", "", "data.render_job_id", "is required"},
		{"a missing required string", events.RenderJobFailedV1, "error_message", "", "data.error_message", "is required"},
		{"a missing required enum", events.RenderJobProgressV1, "step", "", "data.step", "is required"},
		{"a missing required nullable field", events.ContentSvgPreviewGeneratedV1, "svg_url", "", "data.svg_url", "is required"},
		{"an unknown priority queue", events.RenderJobQueuedV1, "priority_queue", `"urgent"`, "data.priority_queue", "must be one of snapshot, vip, paid, preview, mockup, voiceover"},
		{"an unknown price type", events.RenderJobQueuedV1, "price_type", `"cash"`, "data.price_type", "must be one of"},
		{"an unknown step", events.RenderJobFailedV1, "failed_at_step", `"Exploded"`, "data.failed_at_step", "must be one of Queued"},
		{"an unknown register mode", events.IdentityUserRegisteredV1, "register_mode", `"Fax"`, "data.register_mode", "must be one of"},
		{"an unknown tenant kind", events.IdentityTenantCreatedV1, "kind", `"Personal"`, "data.kind", "must be one of"},
		{"an unknown gateway", events.IdentityPaymentSucceededV1, "gateway", `"Cash"`, "data.gateway", "must be one of"},
		{"an unknown payment action", events.IdentityPaymentSucceededV1, "action", `"Tip"`, "data.action", "must be one of"},
		{"an unknown refund destination", events.IdentityPaymentRefundedV1, "refunded_to", `"Wallet"`, "data.refunded_to", "must be one of"},
		{"an unknown api key environment", events.IdentityApiKeyCreatedV1, "environment", `"Staging"`, "data.environment", "must be one of"},
		{"an unknown svg preview status", events.ContentSvgPreviewGeneratedV1, "status", `"Generating"`, "data.status", "must be one of"},
		{"progress above 100", events.RenderJobProgressV1, "progress", `101`, "data.progress", "must be <= 100"},
		{"progress below 0", events.RenderJobProgressV1, "progress", `-1`, "data.progress", "must be >= 0"},
		{"priority score above 100", events.RenderJobQueuedV1, "priority_score", `150`, "data.priority_score", "must be <= 100"},
		{"a quality score above 1", events.ContentSvgPreviewGeneratedV1, "quality_score", `1.5`, "data.quality_score", "must be <= 1"},
		{"a non-uuid id", events.RenderJobCompletedV1, "export_id", `"export-1"`, "data.export_id", "must be a uuid"},
		{"a non-uuid in an array of uuids", events.RenderJobStartedV1, "node_ids", `["` + id1 + `","node-7"]`, "data.node_ids[1]", "must be a uuid"},
		{"a date-time without a zone", events.RenderJobStartedV1, "started_at", `"2025-03-01 12:00"`, "data.started_at", "must be an RFC 3339 date-time"},
		{"a string where an integer is due", events.RenderJobProgressV1, "progress", `"50"`, "data.progress", "must be an integer"},
		{"a fraction where an integer is due", events.RenderJobCompletedV1, "size_bytes", `10.5`, "data.size_bytes", "must be an integer"},
		{"a number where a boolean is due", events.RenderSnapshotRequestedV1, "cached", `1`, "data.cached", "must be a boolean"},
		{"a number where a string is due", events.RenderJobQueuedV1, "region", `42`, "data.region", "must be a string"},
		{"null where null is not allowed", events.RenderJobCompletedV1, "output_url", `null`, "data.output_url", "must not be null"},
		{"null for an optional non-nullable field", events.RenderJobCompletedV1, "resolution", `null`, "data.resolution", "must not be null"},
		{"a region of 2 MiB", events.RenderJobQueuedV1, "region", `"` + strings.Repeat("r", 2<<20) + `"`, "data.region", "must be at most 200 characters long"},
		{"a region one character over its maxLength", events.RenderJobStartedV1, "region", `"` + strings.Repeat("é", 201) + `"`, "data.region", "must be at most 200 characters long"},
		{"an over-long nullable string", events.RenderJobCompletedV1, "thumbnail_url", `"` + strings.Repeat("u", 2001) + `"`, "data.thumbnail_url", "must be at most 2000 characters long"},
		{"an over-long error message", events.RenderJobFailedV1, "error_message", `"` + strings.Repeat("x", 10001) + `"`, "data.error_message", "must be at most 10000 characters long"},
		{"an array over its maxItems", events.RenderJobStartedV1, "node_ids", `[` + strings.TrimSuffix(strings.Repeat(`"`+id1+`",`, 1001), ",") + `]`, "data.node_ids", "must have at most 1000 items"},
		{"an over-long item of an array of strings", events.IdentityApiKeyCreatedV1, "scopes", `["render:read","` + strings.Repeat("s", 201) + `"]`, "data.scopes[1]", "must be at most 200 characters long"},
	}
	for _, tc := range cases {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			_, err := events.Decode(tc.event, []byte(with(t, tc.event, tc.field, tc.value)))
			var ve *events.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want a *events.ValidationError, got %v", err)
			}
			for _, fe := range ve.Errors {
				if fe.Field == tc.wantField && strings.Contains(fe.Message, tc.wantMsg) {
					return
				}
			}
			t.Errorf("want %s: %s..., got %v", tc.wantField, tc.wantMsg, err)
		})
	}
}

// maxLength counts characters, as JSON Schema does: a value at the bound in 4-byte characters
// (four times as many bytes) is accepted.
func TestStringsAtTheirMaxLengthInFourByteCharactersAreAccepted(t *testing.T) {
	region := strings.Repeat("😀", 200)
	p, err := events.Decode(events.RenderJobQueuedV1, []byte(with(t, events.RenderJobQueuedV1, "region", `"`+region+`"`)))
	if err != nil {
		t.Fatalf("a region of 200 characters refused: %v", err)
	}
	if got := p.(events.RenderJobQueuedV1Payload).Region; got != region {
		t.Errorf("region decoded as %d bytes, want %d", len(got), len(region))
	}
	ids := `[` + strings.TrimSuffix(strings.Repeat(`"`+id1+`",`, 1000), ",") + `]`
	if _, err := events.Decode(events.RenderJobStartedV1, []byte(with(t, events.RenderJobStartedV1, "node_ids", ids))); err != nil {
		t.Errorf("1000 node ids refused: %v", err)
	}
}

func TestAPayloadThatIsNotAnObjectIsRefused(t *testing.T) {
	for _, raw := range []string{`null`, `[]`, `"x"`, `{"render_job_id":`} {
		if _, err := events.Decode(events.RenderJobStartedV1, []byte(raw)); err == nil {
			t.Errorf("%s accepted", raw)
		}
	}
}

func TestRefundRequiredDefaultsToTrueWhenAbsent(t *testing.T) {
	p, err := events.Decode(events.RenderJobFailedV1, []byte(validPayloads[events.RenderJobFailedV1]))
	if err != nil {
		t.Fatal(err)
	}
	if !p.(events.RenderJobFailedV1Payload).RefundRequired {
		t.Error("refund_required absent: want true")
	}
	p, err = events.Decode(events.RenderJobCancelledV1, []byte(validPayloads[events.RenderJobCancelledV1]))
	if err != nil {
		t.Fatal(err)
	}
	if p.(events.RenderJobCancelledV1Payload).RefundRequired {
		t.Error("refund_required false: want false")
	}
}

func envelopeJSON(t *testing.T, fields map[string]any) []byte {
	t.Helper()
	env := map[string]any{
		"event_id": id1, "event_type": events.RenderJobProgressV1, "event_time": ts, "tenant_id": id2,
		"producer": "render-orchestrator", "data": json.RawMessage(validPayloads[events.RenderJobProgressV1]),
	}
	for k, v := range fields {
		if v == nil {
			delete(env, k)
		} else {
			env[k] = v
		}
	}
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeEventChecksTheEnvelopeAndTheData(t *testing.T) {
	env, p, err := events.DecodeEvent(envelopeJSON(t, nil))
	if err != nil {
		t.Fatalf("valid event refused: %v", err)
	}
	if got := p.(events.RenderJobProgressV1Payload).Step; got != events.StepRendering {
		t.Errorf("step %q, want Rendering", got)
	}
	key, err := events.RoutingKey(env)
	if err != nil || key != "render.job.progress."+id1 {
		t.Errorf("routing key %q (%v), want render.job.progress.%s", key, err, id1)
	}
	cases := []struct {
		name      string
		fields    map[string]any
		wantField string
	}{
		{"an envelope without event_id", map[string]any{"event_id": nil}, "event_id"},
		{"an envelope with a non-uuid tenant_id", map[string]any{"tenant_id": "acme"}, "tenant_id"},
		{"an envelope without data", map[string]any{"data": nil}, "data"},
		{"a render event claiming another producer", map[string]any{"producer": "identity-service"}, "producer"},
		{"an unknown producer", map[string]any{"producer": "someone"}, "producer"},
		{"data breaking its schema", map[string]any{"data": json.RawMessage(`{"render_job_id":"` + id1 + `","step":"Rendering","progress":300}`)}, "data.progress"},
		{"an over-long event_type", map[string]any{"event_type": strings.Repeat("render.", 40)}, "event_type"},
		{"data with an over-long string", map[string]any{"data": json.RawMessage(`{"render_job_id":"` + id1 + `","step":"Rendering","progress":3,"message":"` + strings.Repeat("m", 2001) + `"}`)}, "data.message"},
	}
	for _, tc := range cases {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			_, _, err := events.DecodeEvent(envelopeJSON(t, tc.fields))
			var ve *events.ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.wantField+":") {
				t.Errorf("want a validation error naming %s, got %v", tc.wantField, err)
			}
		})
	}
	if _, _, err := events.DecodeEvent(envelopeJSON(t, map[string]any{"event_type": "render.job.exploded.v1"})); !errors.Is(err, events.ErrUnknownEvent) {
		t.Errorf("unknown event type: want ErrUnknownEvent, got %v", err)
	}
}

func TestNewEventWrapsAValidPayloadAndRefusesAnInvalidOne(t *testing.T) {
	tenant := uuid.MustParse(id2)
	p := events.RenderJobCompletedV1Payload{RenderJobID: uuid.MustParse(id1), ExportID: uuid.MustParse(id2), OutputURL: "s3://o", DurationSec: 3, SizeBytes: 10}
	env, err := events.NewEvent(tenant, p)
	if err != nil {
		t.Fatal(err)
	}
	if env.EventType != events.RenderJobCompletedV1 || env.Producer == nil || *env.Producer != events.ProducerRenderOrchestrator || env.EventID.Version() != 7 {
		t.Errorf("envelope %+v", env)
	}
	b, _ := json.Marshal(env)
	if _, _, err := events.DecodeEvent(b); err != nil {
		t.Errorf("a built event does not decode: %v", err)
	}
	if key, _ := events.RoutingKey(env); key != events.RenderJobCompletedV1 {
		t.Errorf("routing key %q, want the event name", key)
	}
	p.ExportID = uuid.Nil
	if _, err := events.NewEvent(tenant, p); err == nil || !strings.Contains(err.Error(), "data.export_id") {
		t.Errorf("want data.export_id refused, got %v", err)
	}
	q := events.RenderJobQueuedV1Payload{RenderJobID: uuid.MustParse(id1), SavedProjectID: uuid.MustParse(id2), PriorityQueue: events.PriorityQueueVip, PriceType: "Gift", Region: "eu"}
	if _, err := events.NewEvent(tenant, q); err == nil || !strings.Contains(err.Error(), "data.price_type") {
		t.Errorf("want data.price_type refused, got %v", err)
	}
}

func TestTheEmbeddedDocumentIsTheSpec(t *testing.T) {
	if !strings.Contains(string(events.AsyncAPIDocument()), "asyncapi: 3.0.0") {
		t.Error("embedded document is not the AsyncAPI document")
	}
}
