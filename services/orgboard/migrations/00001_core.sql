-- +goose Up

-- Organizations are the top of the hierarchy; everything below carries organization_id so that
-- every reference can be checked within one organization by a composite foreign key.
CREATE TABLE organizations (
    id         uuid PRIMARY KEY,
    name       text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    created_by uuid NOT NULL,
    created_at timestamptz NOT NULL
);

-- Membership and roles per organization (the identity module).
CREATE TABLE memberships (
    organization_id uuid NOT NULL REFERENCES organizations (id),
    user_id         uuid NOT NULL,
    role            text NOT NULL CHECK (role IN ('Owner', 'Member')),
    joined_at       timestamptz NOT NULL,
    PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id);

-- Invitations: addressed to exactly one of an email or a user id. Only the sha256 of the
-- acceptance token is stored. Status is derived: accepted when accepted_at is set, expired when
-- expires_at has passed, pending otherwise.
CREATE TABLE invitations (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    email           text CHECK (email IS NULL OR char_length(email) <= 320),
    user_id         uuid,
    role            text NOT NULL CHECK (role IN ('Owner', 'Member')),
    token_sha256    bytea NOT NULL,
    invited_by      uuid NOT NULL,
    created_at      timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    accepted_at     timestamptz,
    accepted_by     uuid,
    CHECK ((email IS NULL) <> (user_id IS NULL)),
    CHECK ((accepted_at IS NULL) = (accepted_by IS NULL))
);
CREATE INDEX invitations_org_idx ON invitations (organization_id, created_at DESC, id DESC);
CREATE INDEX invitations_user_idx ON invitations (organization_id, user_id) WHERE accepted_at IS NULL;
CREATE INDEX invitations_email_idx ON invitations (organization_id, lower(email)) WHERE accepted_at IS NULL;

CREATE TABLE divisions (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    name            text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    description     text NOT NULL DEFAULT '' CHECK (char_length(description) <= 2000),
    created_at      timestamptz NOT NULL,
    CONSTRAINT divisions_org_name_key UNIQUE (organization_id, name),
    UNIQUE (organization_id, id)
);

-- A product's division must be a division of the same organization (composite key; a null
-- division skips the check).
CREATE TABLE products (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL REFERENCES organizations (id),
    division_id      uuid,
    name             text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    kind             text NOT NULL CHECK (kind IN ('Product', 'Service')),
    description      text NOT NULL DEFAULT '' CHECK (char_length(description) <= 2000),
    identity_version bigint NOT NULL DEFAULT 0 CHECK (identity_version >= 0),
    created_at       timestamptz NOT NULL,
    CONSTRAINT products_org_name_key UNIQUE (organization_id, name),
    UNIQUE (organization_id, id),
    CONSTRAINT products_division_fkey FOREIGN KEY (organization_id, division_id)
        REFERENCES divisions (organization_id, id)
);

-- Every version of a product identity is kept: rows are only ever inserted (see the trigger
-- below), so an edit never loses the previous text. products.identity_version is the current one.
CREATE TABLE product_identities (
    product_id uuid NOT NULL REFERENCES products (id),
    version    bigint NOT NULL CHECK (version >= 1),
    content    text NOT NULL CHECK (char_length(content) <= 65536),
    updated_by uuid,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (product_id, version)
);

CREATE TABLE teams (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    product_id      uuid,
    name            text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    created_at      timestamptz NOT NULL,
    UNIQUE (organization_id, id),
    CONSTRAINT teams_product_fkey FOREIGN KEY (organization_id, product_id)
        REFERENCES products (organization_id, id)
);
CREATE INDEX teams_org_idx ON teams (organization_id, name, id);

-- The Lead role is per team and held by a member of the team's organization.
CREATE TABLE team_leads (
    team_id         uuid NOT NULL,
    organization_id uuid NOT NULL,
    user_id         uuid NOT NULL,
    assigned_at     timestamptz NOT NULL,
    PRIMARY KEY (team_id, user_id),
    FOREIGN KEY (organization_id, team_id) REFERENCES teams (organization_id, id),
    FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id)
);
CREATE INDEX team_leads_user_idx ON team_leads (organization_id, user_id);

-- Seats: human (user_id set, a member of the organization), open, or ai (agent_id set).
--
-- Exactly one agent per seat. This table holds the seat's side: agent_id is the seat's only agent
-- and is UNIQUE (an agent sits on one seat). The agents table (migrations 00100+) holds the other
-- side: agents.seat_id NOT NULL UNIQUE REFERENCES seats (id), so no two agents claim a seat; the
-- same migration adds the foreign key seats.agent_id -> agents (id) (DEFERRABLE INITIALLY
-- DEFERRED, so the agent row and the seat flip can be written in either order in one transaction).
CREATE TABLE seats (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    team_id         uuid NOT NULL,
    title           text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
    state           text NOT NULL CHECK (state IN ('human', 'open', 'ai')),
    user_id         uuid,
    agent_id        uuid CONSTRAINT seats_agent_id_key UNIQUE,
    created_at      timestamptz NOT NULL,
    UNIQUE (team_id, id),
    FOREIGN KEY (organization_id, team_id) REFERENCES teams (organization_id, id),
    FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id),
    CONSTRAINT seats_human_has_user CHECK ((state = 'human') = (user_id IS NOT NULL)),
    CONSTRAINT seats_ai_has_agent CHECK ((state = 'ai') = (agent_id IS NOT NULL))
);
CREATE INDEX seats_team_idx ON seats (team_id, created_at, id);

-- Work items. The parent is a work item of the same team (composite key), fixed at creation and
-- existing before the child, so the parent links can never form a cycle. An assignee is either a
-- user or a seat of the item's team, never both.
CREATE TABLE work_items (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL,
    team_id          uuid NOT NULL,
    type             text NOT NULL CHECK (type IN ('epic', 'story', 'task', 'bug')),
    title            text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 500),
    description      text NOT NULL DEFAULT '' CHECK (char_length(description) <= 65536),
    status           text NOT NULL CHECK (status IN ('backlog', 'in_progress', 'in_review', 'done')),
    assignee_user_id uuid,
    assignee_seat_id uuid,
    parent_id        uuid,
    created_by       uuid NOT NULL,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    UNIQUE (team_id, id),
    FOREIGN KEY (organization_id, team_id) REFERENCES teams (organization_id, id),
    FOREIGN KEY (team_id, parent_id) REFERENCES work_items (team_id, id),
    FOREIGN KEY (team_id, assignee_seat_id) REFERENCES seats (team_id, id),
    FOREIGN KEY (organization_id, assignee_user_id) REFERENCES memberships (organization_id, user_id),
    CHECK (parent_id IS NULL OR parent_id <> id),
    CHECK (assignee_user_id IS NULL OR assignee_seat_id IS NULL)
);
CREATE INDEX work_items_board_idx ON work_items (team_id, created_at, id);
CREATE INDEX work_items_user_cartable_idx ON work_items (assignee_user_id, updated_at DESC, id DESC)
    WHERE assignee_user_id IS NOT NULL;
CREATE INDEX work_items_seat_idx ON work_items (assignee_seat_id) WHERE assignee_seat_id IS NOT NULL;
CREATE INDEX work_items_parent_idx ON work_items (parent_id) WHERE parent_id IS NOT NULL;

-- The append-only audit log. Entries are written in the same transaction as the change they
-- record; the triggers below refuse UPDATE, DELETE and TRUNCATE for every role, the table owner
-- included (revoking privileges alone would not stop the owner).
CREATE TABLE audit_entries (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    actor_id        uuid,
    actor_kind      text NOT NULL CHECK (actor_kind IN ('user', 'service', 'system')),
    actor_name      text,
    action          text NOT NULL CHECK (char_length(action) BETWEEN 1 AND 100),
    scope_type      text NOT NULL CHECK (scope_type IN ('organization', 'team')),
    scope_id        uuid NOT NULL,
    target_type     text NOT NULL,
    target_id       uuid,
    before          jsonb,
    after           jsonb,
    at              timestamptz NOT NULL
);
CREATE INDEX audit_entries_org_idx ON audit_entries (organization_id, at DESC, id DESC);
CREATE INDEX audit_entries_action_idx ON audit_entries (organization_id, action, at DESC, id DESC);
CREATE INDEX audit_entries_actor_idx ON audit_entries (organization_id, actor_id, at DESC, id DESC);
CREATE INDEX audit_entries_target_idx ON audit_entries (organization_id, target_id, at DESC, id DESC);

-- +goose StatementBegin
CREATE FUNCTION refuse_append_only_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER audit_entries_append_only
    BEFORE UPDATE OR DELETE ON audit_entries
    FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER audit_entries_no_truncate
    BEFORE TRUNCATE ON audit_entries
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only_change();
REVOKE UPDATE, DELETE, TRUNCATE ON audit_entries FROM PUBLIC;

CREATE TRIGGER product_identities_append_only
    BEFORE UPDATE OR DELETE ON product_identities
    FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER product_identities_no_truncate
    BEFORE TRUNCATE ON product_identities
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only_change();

-- +goose Down
DROP TABLE audit_entries;
DROP TABLE work_items;
DROP TABLE seats;
DROP TABLE team_leads;
DROP TABLE teams;
DROP TABLE product_identities;
DROP TABLE products;
DROP TABLE divisions;
DROP TABLE invitations;
DROP TABLE memberships;
DROP TABLE organizations;
DROP FUNCTION refuse_append_only_change();
