-- +goose Up
-- Media in object storage: the projects' AEP files (single-request and S3 multipart uploads),
-- font files (columns of fonts) and SVG colour previews.

-- The object key of the project's AEP file, so a replaced file can be removed.
ALTER TABLE projects ADD COLUMN IF NOT EXISTS aep_file_key text;

-- A multipart AEP upload started (POST .../aep/start-upload) and neither completed nor
-- aborted yet. No foreign key to projects: the row must outlive a deleted project so that the
-- sweeper still aborts the S3 upload.
CREATE TABLE aep_uploads (
    id               uuid PRIMARY KEY,
    project_id       uuid NOT NULL,
    upload_id        text NOT NULL,
    bucket           text NOT NULL,
    key              text NOT NULL,
    filename         text NOT NULL,
    total_size_bytes bigint NOT NULL,
    chunk_size_bytes bigint NOT NULL,
    part_count       integer NOT NULL,
    created_at       timestamptz NOT NULL,
    CONSTRAINT aep_uploads_upload_id_key UNIQUE (upload_id)
);
CREATE INDEX aep_uploads_created_idx ON aep_uploads (created_at);

-- An SVG colour preview and its generation job. project_id is the target project, or the
-- project of the target scene; scene_id is set for scene targets. The output columns are set
-- when status becomes Ready, error when it becomes Failed.
CREATE TABLE svg_previews (
    id                uuid PRIMARY KEY,
    tenant_id         uuid NOT NULL,
    target_type       text NOT NULL
        CONSTRAINT svg_previews_target_type_check CHECK (target_type IN ('project', 'scene')),
    target_id         uuid NOT NULL,
    project_id        uuid REFERENCES projects (id) ON DELETE CASCADE,
    scene_id          uuid REFERENCES scenes (id) ON DELETE CASCADE,
    status            text NOT NULL DEFAULT 'Generating'
        CONSTRAINT svg_previews_status_check CHECK (status IN ('Generating', 'Ready', 'Failed')),
    error             text,
    color_keys        jsonb NOT NULL DEFAULT '[]',
    source_image_key  text NOT NULL,
    source_image_url  text NOT NULL,
    source_media_type text NOT NULL,
    svg_url           text,
    thumbnail_url     text,
    width             integer,
    height            integer,
    generated_by_ai   boolean,
    quality_score     double precision,
    color_zones       jsonb,
    requested_by      text NOT NULL DEFAULT '',
    created_at        timestamptz NOT NULL,
    finished_at       timestamptz
);
-- The current preview of a scene is its latest.
CREATE INDEX svg_previews_scene_idx ON svg_previews (scene_id, created_at DESC, id DESC) WHERE scene_id IS NOT NULL;
-- The sweeper's look for jobs that never finished.
CREATE INDEX svg_previews_generating_idx ON svg_previews (created_at) WHERE status = 'Generating';

-- +goose Down
DROP TABLE svg_previews;
DROP TABLE aep_uploads;
ALTER TABLE projects DROP COLUMN IF EXISTS aep_file_key;
