-- +goose Up
-- The template catalog: taxonomy, containers (templates), render servers and projects.
-- Text fields the contract returns as strings are NOT NULL DEFAULT '' so reads never map NULLs.

CREATE TABLE categories (
    id          uuid PRIMARY KEY,
    slug        text NOT NULL,
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    image_url   text NOT NULL DEFAULT '',
    icon        text NOT NULL DEFAULT '',
    parent_id   uuid REFERENCES categories (id) ON DELETE SET NULL,
    sort        integer NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT categories_slug_key UNIQUE (slug)
);
CREATE INDEX categories_sort_idx ON categories (sort, id);

CREATE TABLE tags (
    id              uuid PRIMARY KEY,
    slug            text NOT NULL,
    name            text NOT NULL,
    latin_name      text NOT NULL DEFAULT '',
    applies_to_mode text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT tags_slug_key UNIQUE (slug)
);
CREATE INDEX tags_name_idx ON tags (name, id);

CREATE TABLE containers (
    id           uuid PRIMARY KEY,
    slug         text NOT NULL,
    name         text NOT NULL,
    description  text NOT NULL DEFAULT '',
    keywords     text NOT NULL DEFAULT '',
    news_text    text NOT NULL DEFAULT '',
    image        text NOT NULL DEFAULT '',
    demo         text NOT NULL DEFAULT '',
    full_demo    text NOT NULL DEFAULT '',
    mini_demo    text NOT NULL DEFAULT '',
    is_published boolean NOT NULL DEFAULT false,
    is_premium   boolean NOT NULL DEFAULT false,
    is_mockup    boolean NOT NULL DEFAULT false,
    primary_mode text NOT NULL,
    rate_avg     double precision NOT NULL DEFAULT 0,
    rate_count   integer NOT NULL DEFAULT 0,
    use_count    bigint NOT NULL DEFAULT 0,
    -- Copies of the link tables (kept in the same transaction as the links) so that the
    -- catalog search filters "has ALL these tags" with one GIN lookup instead of a join.
    category_ids uuid[] NOT NULL DEFAULT '{}',
    tag_ids      uuid[] NOT NULL DEFAULT '{}',
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    deleted_at   timestamptz,
    search       tsvector GENERATED ALWAYS AS (
                     setweight(to_tsvector('english'::regconfig, name), 'A') ||
                     setweight(to_tsvector('english'::regconfig, keywords), 'B') ||
                     setweight(to_tsvector('english'::regconfig, description), 'C')) STORED,
    CONSTRAINT containers_slug_key UNIQUE (slug)
);
-- The public search: one GIN scan intersects text, tags and category over the visible catalog.
-- fastupdate is off: catalog writes are rare and a pending list would make every search scan
-- it (and the planner avoid the index) until the next vacuum.
CREATE INDEX containers_visible_filter_idx ON containers USING gin (search, tag_ids, category_ids)
    WITH (fastupdate = off) WHERE is_published AND deleted_at IS NULL;
-- The same filters for admins, who also see unpublished containers.
CREATE INDEX containers_search_idx ON containers USING gin (search) WITH (fastupdate = off);
CREATE INDEX containers_tag_ids_idx ON containers USING gin (tag_ids) WITH (fastupdate = off);
CREATE INDEX containers_category_ids_idx ON containers USING gin (category_ids) WITH (fastupdate = off);
-- The four catalog sorts over the visible catalog (the public hot path).
CREATE INDEX containers_visible_newest_idx ON containers (created_at DESC, id)
    WHERE is_published AND deleted_at IS NULL;
CREATE INDEX containers_visible_popular_idx ON containers (use_count DESC, id)
    WHERE is_published AND deleted_at IS NULL;
CREATE INDEX containers_visible_rate_idx ON containers (rate_avg DESC, rate_count DESC, id)
    WHERE is_published AND deleted_at IS NULL;
CREATE INDEX containers_visible_az_idx ON containers (name, id)
    WHERE is_published AND deleted_at IS NULL;

-- Every publication and unpublication, with the reason given (kept, not part of the resource).
CREATE TABLE container_publication_log (
    id           uuid PRIMARY KEY,
    container_id uuid NOT NULL REFERENCES containers (id) ON DELETE CASCADE,
    published    boolean NOT NULL,
    reason       text NOT NULL DEFAULT '',
    actor        text NOT NULL DEFAULT '',
    at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX container_publication_log_container_idx ON container_publication_log (container_id, at);

CREATE TABLE container_categories (
    container_id uuid NOT NULL REFERENCES containers (id) ON DELETE CASCADE,
    category_id  uuid NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
    PRIMARY KEY (container_id, category_id)
);
CREATE INDEX container_categories_category_idx ON container_categories (category_id, container_id);

CREATE TABLE container_tags (
    container_id uuid NOT NULL REFERENCES containers (id) ON DELETE CASCADE,
    tag_id       uuid NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    PRIMARY KEY (container_id, tag_id)
);
CREATE INDEX container_tags_tag_idx ON container_tags (tag_id, container_id);

CREATE TABLE project_servers (
    id                      uuid PRIMARY KEY,
    name                    text NOT NULL,
    region                  text NOT NULL DEFAULT '',
    ip                      text NOT NULL DEFAULT '',
    default_project_address text NOT NULL DEFAULT '',
    render_output_location  text NOT NULL DEFAULT '',
    minio_endpoint          text NOT NULL DEFAULT '',
    minio_bucket_templates  text NOT NULL DEFAULT '',
    minio_bucket_outputs    text NOT NULL DEFAULT '',
    is_active               boolean NOT NULL DEFAULT true,
    created_at              timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE projects (
    id                   uuid PRIMARY KEY,
    container_id         uuid NOT NULL REFERENCES containers (id) ON DELETE CASCADE,
    project_server_id    uuid REFERENCES project_servers (id) ON DELETE SET NULL,
    name                 text NOT NULL,
    aspect               text NOT NULL DEFAULT '',
    resolution           text NOT NULL DEFAULT '',
    choose_mode          text NOT NULL,
    image                text NOT NULL DEFAULT '',
    original_width       integer NOT NULL,
    original_height      integer NOT NULL,
    project_duration_sec double precision NOT NULL,
    description          text NOT NULL DEFAULT '',
    full_demo            text NOT NULL DEFAULT '',
    download_link        text NOT NULL DEFAULT '',
    aep_file_url         text,
    aep_file_md5         text,
    aep_file_size_bytes  bigint,
    min_duration_sec     double precision NOT NULL DEFAULT 0,
    max_duration_sec     double precision NOT NULL DEFAULT 0,
    free_fps             integer NOT NULL DEFAULT 25,
    vip_factor           double precision NOT NULL DEFAULT 1,
    render_aep_comp      text NOT NULL DEFAULT '',
    is_published         boolean NOT NULL DEFAULT true,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_container_idx ON projects (container_id, aspect) INCLUDE (is_published);

-- +goose Down
DROP TABLE projects;
DROP TABLE project_servers;
DROP TABLE container_tags;
DROP TABLE container_categories;
DROP TABLE container_publication_log;
DROP TABLE containers;
DROP TABLE tags;
DROP TABLE categories;
