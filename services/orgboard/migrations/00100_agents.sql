-- +goose Up

-- Model connections (ApiConfig), supplied by the organization. The key is sealed (AES-256-GCM,
-- pkg/seal) and never returned; key_hint keeps its last characters for recognition.
CREATE TABLE api_configs (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    name            text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    provider        text NOT NULL CHECK (provider IN ('stub', 'custom', 'openai', 'anthropic', 'azure_openai',
                        'gemini', 'mistral', 'groq', 'openrouter', 'ollama', 'lmstudio', 'llamacpp', 'vllm')),
    endpoint        text CHECK (endpoint IS NULL OR char_length(endpoint) BETWEEN 1 AND 2000),
    model           text NOT NULL CHECK (char_length(model) BETWEEN 1 AND 200),
    key_sealed      bytea,
    key_hint        text,
    created_by      uuid NOT NULL,
    created_at      timestamptz NOT NULL,
    CONSTRAINT api_configs_org_name_key UNIQUE (organization_id, name),
    UNIQUE (organization_id, id),
    CHECK ((key_sealed IS NULL) = (key_hint IS NULL))
);

-- MCP tool servers of an organization. The authentication headers are one sealed JSON object;
-- only their names are kept in clear.
CREATE TABLE tool_servers (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    name            text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    url             text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2000),
    header_names    text[] NOT NULL DEFAULT '{}',
    headers_sealed  bytea,
    created_by      uuid NOT NULL,
    created_at      timestamptz NOT NULL,
    CONSTRAINT tool_servers_org_name_key UNIQUE (organization_id, name),
    UNIQUE (organization_id, id)
);

-- Agent profiles (AGENTS.md). Builtins have no organization; NULLS NOT DISTINCT makes the
-- builtins' (profile_key, version) unique too, so seeding them is idempotent with ON CONFLICT.
CREATE TABLE agent_profiles (
    id              uuid PRIMARY KEY,
    organization_id uuid REFERENCES organizations (id),
    profile_key     text NOT NULL CHECK (char_length(profile_key) <= 64 AND profile_key ~ '^[a-z0-9][a-z0-9-]*$'),
    version         text NOT NULL CHECK (char_length(version) BETWEEN 5 AND 64),
    name            text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    description     text NOT NULL DEFAULT '',
    origin          text NOT NULL CHECK (origin IN ('Builtin', 'Authored', 'Installed')),
    visibility      text NOT NULL CHECK (visibility IN ('Private', 'Public')),
    status          text NOT NULL CHECK (status IN ('Draft', 'Published', 'Unpublished')),
    skills          text[] NOT NULL DEFAULT '{}',
    tools           text[] NOT NULL DEFAULT '{}',
    autonomy        text NOT NULL CHECK (autonomy IN ('suggest', 'draft', 'act_with_approval', 'autonomous')),
    content         text NOT NULL CHECK (octet_length(content) <= 65536),
    body            text NOT NULL,
    forked_from     uuid REFERENCES agent_profiles (id),
    installed_from  uuid REFERENCES agent_profiles (id),
    published_at    timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT agent_profiles_org_key_version_key UNIQUE NULLS NOT DISTINCT (organization_id, profile_key, version),
    CONSTRAINT agent_profiles_public_is_published CHECK (visibility <> 'Public' OR status = 'Published'),
    CONSTRAINT agent_profiles_builtin_has_no_org CHECK ((origin = 'Builtin') = (organization_id IS NULL)),
    CHECK (origin = 'Installed' OR installed_from IS NULL)
);
CREATE INDEX agent_profiles_library_idx ON agent_profiles (organization_id, profile_key);
CREATE INDEX agent_profiles_marketplace_idx ON agent_profiles (published_at DESC, id DESC) WHERE visibility = 'Public';

-- The agent on a seat: exactly one per seat (seat_id UNIQUE here, seats.agent_id UNIQUE there).
-- Model connections and the seat are of the agent's organization and team (composite keys);
-- mcp_server_ids is checked by the application and cleaned when a tool server is deleted.
CREATE TABLE agents (
    id                     uuid PRIMARY KEY,
    organization_id        uuid NOT NULL,
    team_id                uuid NOT NULL,
    seat_id                uuid NOT NULL CONSTRAINT agents_seat_id_key UNIQUE,
    name                   text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    monogram               text NOT NULL CHECK (char_length(monogram) BETWEEN 1 AND 3),
    autonomy               text NOT NULL CHECK (autonomy IN ('suggest', 'draft', 'act_with_approval', 'autonomous')),
    api_config_id          uuid NOT NULL,
    fallback_api_config_id uuid,
    skill_keys             text[] NOT NULL DEFAULT '{}',
    docs                   text[] NOT NULL DEFAULT '{}',
    persona                text NOT NULL DEFAULT '',
    mcp_server_ids         uuid[] NOT NULL DEFAULT '{}',
    profile_id             uuid REFERENCES agent_profiles (id),
    created_at             timestamptz NOT NULL,
    updated_at             timestamptz NOT NULL,
    UNIQUE (organization_id, id),
    FOREIGN KEY (organization_id, team_id) REFERENCES teams (organization_id, id),
    CONSTRAINT agents_seat_fkey FOREIGN KEY (team_id, seat_id) REFERENCES seats (team_id, id),
    CONSTRAINT agents_api_config_fkey FOREIGN KEY (organization_id, api_config_id)
        REFERENCES api_configs (organization_id, id),
    CONSTRAINT agents_fallback_api_config_fkey FOREIGN KEY (organization_id, fallback_api_config_id)
        REFERENCES api_configs (organization_id, id)
);
CREATE INDEX agents_api_config_idx ON agents (api_config_id);
CREATE INDEX agents_fallback_api_config_idx ON agents (fallback_api_config_id) WHERE fallback_api_config_id IS NOT NULL;
CREATE INDEX agents_mcp_servers_idx ON agents USING gin (mcp_server_ids);

-- The seat's side of the one-to-one (see 00001_core.sql): deferred, so the agent row and the seat
-- flip can be written in either order within one transaction.
ALTER TABLE seats ADD CONSTRAINT seats_agent_fkey FOREIGN KEY (agent_id) REFERENCES agents (id)
    DEFERRABLE INITIALLY DEFERRED;

-- Agent runs: the assembled prompt and its trace, then the draft, then the approved text.
-- api_config_id has no foreign key: a run keeps naming the connection that drafted it after
-- the connection is deleted.
CREATE TABLE agent_runs (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    team_id         uuid NOT NULL,
    agent_id        uuid NOT NULL,
    task_id         uuid NOT NULL,
    status          text NOT NULL CHECK (status IN ('prepared', 'drafted', 'approved', 'failed')),
    sections        jsonb NOT NULL,
    prompt          text NOT NULL,
    trace           jsonb NOT NULL,
    draft           text,
    model           text,
    api_config_id   uuid,
    fallback_used   boolean NOT NULL DEFAULT false,
    final_text      text,
    edit_distance   double precision CHECK (edit_distance BETWEEN 0 AND 1),
    created_by      uuid NOT NULL,
    created_at      timestamptz NOT NULL,
    executed_at     timestamptz,
    approved_by     uuid,
    approved_at     timestamptz,
    FOREIGN KEY (organization_id, team_id) REFERENCES teams (organization_id, id),
    FOREIGN KEY (organization_id, agent_id) REFERENCES agents (organization_id, id),
    FOREIGN KEY (team_id, task_id) REFERENCES work_items (team_id, id),
    CHECK ((status IN ('drafted', 'approved')) = (draft IS NOT NULL)),
    CHECK ((status = 'approved') = (final_text IS NOT NULL AND edit_distance IS NOT NULL AND approved_at IS NOT NULL))
);
CREATE INDEX agent_runs_task_idx ON agent_runs (task_id, created_at DESC, id DESC);

-- +goose Down
DROP TABLE agent_runs;
ALTER TABLE seats DROP CONSTRAINT seats_agent_fkey;
DROP TABLE agents;
DROP TABLE agent_profiles;
DROP TABLE tool_servers;
DROP TABLE api_configs;
