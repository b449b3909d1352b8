-- +goose Up
-- What belongs to users (favorites, comments) and the CMS (blogs, slides, home events, settings).

CREATE TABLE favorite_folders (
    id          uuid PRIMARY KEY,
    user_id     uuid NOT NULL,
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT favorite_folders_user_name_key UNIQUE (user_id, name),
    CONSTRAINT favorite_folders_id_user_key UNIQUE (id, user_id)
);
CREATE INDEX favorite_folders_user_idx ON favorite_folders (user_id, created_at, id);

-- One row per (user, template); the folder, when given, must be one of the user's folders.
CREATE TABLE favorite_containers (
    user_id      uuid NOT NULL,
    container_id uuid NOT NULL REFERENCES containers (id) ON DELETE CASCADE,
    folder_id    uuid,
    note         text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, container_id),
    CONSTRAINT favorite_containers_folder_fkey FOREIGN KEY (folder_id, user_id)
        REFERENCES favorite_folders (id, user_id) ON DELETE SET NULL (folder_id)
);
CREATE INDEX favorite_containers_folder_idx ON favorite_containers (folder_id) WHERE folder_id IS NOT NULL;

CREATE TABLE blogs (
    id                  uuid PRIMARY KEY,
    slug                text NOT NULL,
    kind                text NOT NULL DEFAULT 'article',
    title               text NOT NULL,
    short_description   text NOT NULL DEFAULT '',
    content             text NOT NULL DEFAULT '',
    image               text NOT NULL DEFAULT '',
    cover               text NOT NULL DEFAULT '',
    author_display_name text NOT NULL DEFAULT '',
    publish_date        timestamptz NOT NULL DEFAULT now(),
    view_count          bigint NOT NULL DEFAULT 0,
    created_at          timestamptz NOT NULL DEFAULT now(),
    search              tsvector GENERATED ALWAYS AS (
                            setweight(to_tsvector('english'::regconfig, title), 'A') ||
                            setweight(to_tsvector('english'::regconfig, short_description), 'B') ||
                            setweight(to_tsvector('english'::regconfig, content), 'C')) STORED,
    CONSTRAINT blogs_slug_key UNIQUE (slug)
);
CREATE INDEX blogs_search_idx ON blogs USING gin (search);
CREATE INDEX blogs_publish_date_idx ON blogs (publish_date DESC, id);

-- Comments start pending approval; moderation (outside this API) moves them on.
CREATE TABLE comments (
    id                uuid PRIMARY KEY,
    user_id           uuid NOT NULL,
    tenant_id         uuid,
    content           text NOT NULL,
    rate              double precision CONSTRAINT comments_rate_check CHECK (rate BETWEEN 0 AND 5),
    blog_id           uuid REFERENCES blogs (id) ON DELETE CASCADE,
    container_id      uuid REFERENCES containers (id) ON DELETE CASCADE,
    parent_comment_id uuid REFERENCES comments (id) ON DELETE CASCADE,
    status            text NOT NULL DEFAULT 'pending'
        CONSTRAINT comments_status_check CHECK (status IN ('pending', 'approved', 'rejected')),
    created_at        timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT comments_one_target_check CHECK (num_nonnulls(blog_id, container_id) = 1)
);
CREATE INDEX comments_blog_idx ON comments (blog_id, created_at) WHERE blog_id IS NOT NULL;
CREATE INDEX comments_container_idx ON comments (container_id, created_at) WHERE container_id IS NOT NULL;

CREATE TABLE slides (
    id         uuid PRIMARY KEY,
    title      text NOT NULL DEFAULT '',
    image      text NOT NULL DEFAULT '',
    keyword    text NOT NULL DEFAULT '',
    slide_type text NOT NULL DEFAULT '',
    parameter  text NOT NULL DEFAULT '',
    sort       integer NOT NULL DEFAULT 0
);
CREATE INDEX slides_sort_idx ON slides (sort, id);

CREATE TABLE home_events (
    id               uuid PRIMARY KEY,
    title            text NOT NULL DEFAULT '',
    subtitle         text NOT NULL DEFAULT '',
    description      text NOT NULL DEFAULT '',
    button_text      text NOT NULL DEFAULT '',
    button_url       text NOT NULL DEFAULT '',
    badge            text NOT NULL DEFAULT '',
    image            text NOT NULL DEFAULT '',
    color            text NOT NULL DEFAULT '',
    background_color text NOT NULL DEFAULT '',
    text_color       text NOT NULL DEFAULT '',
    sort             integer NOT NULL DEFAULT 0
);
CREATE INDEX home_events_sort_idx ON home_events (sort, id);

-- Website settings per tenant, one row per key. The nil tenant
-- (00000000-0000-0000-0000-000000000000) holds the platform defaults; a tenant's own key
-- overrides the default. Only keys flagged public are ever served by the API.
CREATE TABLE website_settings (
    tenant_id  uuid NOT NULL,
    key        text NOT NULL,
    value      jsonb NOT NULL,
    is_public  boolean NOT NULL DEFAULT false,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, key)
);

-- +goose Down
DROP TABLE website_settings;
DROP TABLE home_events;
DROP TABLE slides;
DROP TABLE comments;
DROP TABLE blogs;
DROP TABLE favorite_containers;
DROP TABLE favorite_folders;
