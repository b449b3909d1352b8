-- +goose Up
-- Media library (fonts, music) and the content of a project: scenes with their elements,
-- shared layers and colours, character controllers and presets, preset stories.
--
-- Every scene-level child row carries the project_id of its scene (guarded by a composite
-- foreign key to scenes (id, project_id)), so the full project aggregate reads each child table
-- with one index scan by project, whatever the number of scenes.

CREATE TABLE fonts (
    id                 uuid PRIMARY KEY,
    name               text NOT NULL,
    original_name      text NOT NULL DEFAULT '',
    system_name        text NOT NULL DEFAULT '',
    family             text NOT NULL DEFAULT '',
    style              text NOT NULL DEFAULT 'normal',
    direction          text NOT NULL DEFAULT 'ltr',
    weight             integer NOT NULL DEFAULT 400,
    file_key           text NOT NULL DEFAULT '',
    file_url           text NOT NULL DEFAULT '',
    file_size_bytes    bigint NOT NULL DEFAULT 0,
    file_format        text NOT NULL DEFAULT '',
    sample_image_url   text NOT NULL DEFAULT '',
    is_premium         boolean NOT NULL DEFAULT false,
    installed_on_nodes boolean NOT NULL DEFAULT false,
    created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX fonts_name_idx ON fonts (name, id);

CREATE TABLE music_tracks (
    id            uuid PRIMARY KEY,
    name          text NOT NULL,
    caption       text NOT NULL DEFAULT '',
    keywords      text NOT NULL DEFAULT '',
    url           text NOT NULL,
    genre         text NOT NULL DEFAULT '',
    mood          text NOT NULL DEFAULT '',
    duration_sec  double precision NOT NULL DEFAULT 0,
    bpm           integer NOT NULL DEFAULT 0,
    is_premium    boolean NOT NULL DEFAULT false,
    waveform_data jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    search        tsvector GENERATED ALWAYS AS (
                      setweight(to_tsvector('english'::regconfig, name), 'A') ||
                      setweight(to_tsvector('english'::regconfig, keywords), 'B') ||
                      setweight(to_tsvector('english'::regconfig, caption), 'C')) STORED
);
CREATE INDEX music_tracks_search_idx ON music_tracks USING gin (search);
CREATE INDEX music_tracks_name_idx ON music_tracks (name, id);
CREATE INDEX music_tracks_genre_mood_idx ON music_tracks (genre, mood);

CREATE TABLE scenes (
    id                     uuid PRIMARY KEY,
    project_id             uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key                    text NOT NULL,
    title                  text NOT NULL,
    scene_type             text NOT NULL DEFAULT '',
    image                  text NOT NULL DEFAULT '',
    demo                   text NOT NULL DEFAULT '',
    snapshot_url           text NOT NULL DEFAULT '',
    localized_title        jsonb NOT NULL DEFAULT '{}',
    default_duration_sec   double precision NOT NULL DEFAULT 0,
    min_duration_sec       double precision NOT NULL DEFAULT 0,
    max_duration_sec       double precision NOT NULL DEFAULT 0,
    overlap_at_end_sec     double precision NOT NULL DEFAULT 0,
    manual_color_selection boolean NOT NULL DEFAULT false,
    sort                   integer NOT NULL DEFAULT 0,
    created_at             timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT scenes_project_key_key UNIQUE (project_id, key),
    CONSTRAINT scenes_id_project_key UNIQUE (id, project_id)
);
CREATE INDEX scenes_project_sort_idx ON scenes (project_id, sort, id);

CREATE TABLE repeater_items (
    id                   uuid PRIMARY KEY,
    scene_id             uuid NOT NULL,
    project_id           uuid NOT NULL,
    title                text NOT NULL DEFAULT '',
    repeat_box_key       text NOT NULL DEFAULT '',
    repeat_item_key      text NOT NULL DEFAULT '',
    repeat_sort_strategy text NOT NULL DEFAULT '',
    max_repeat_count     integer NOT NULL DEFAULT 0,
    sort                 integer NOT NULL DEFAULT 0,
    CONSTRAINT repeater_items_scene_fkey FOREIGN KEY (scene_id, project_id)
        REFERENCES scenes (id, project_id) ON DELETE CASCADE,
    CONSTRAINT repeater_items_id_scene_key UNIQUE (id, scene_id)
);
CREATE INDEX repeater_items_project_idx ON repeater_items (project_id, scene_id, sort, id);
CREATE INDEX repeater_items_scene_idx ON repeater_items (scene_id, sort, id);

CREATE TABLE scene_contents (
    id                     uuid PRIMARY KEY,
    scene_id               uuid NOT NULL,
    project_id             uuid NOT NULL,
    repeater_item_id       uuid,
    key                    text NOT NULL,
    title                  text NOT NULL DEFAULT '',
    hint                   text NOT NULL DEFAULT '',
    type                   text NOT NULL DEFAULT '',
    default_value          text NOT NULL DEFAULT '',
    font_face              text NOT NULL DEFAULT '',
    justify                text NOT NULL DEFAULT '',
    direction_layer_key    text NOT NULL DEFAULT '',
    ai_input_type          text NOT NULL DEFAULT '',
    opacity_controller_key text NOT NULL DEFAULT '',
    localized_title        jsonb NOT NULL DEFAULT '{}',
    font_id                uuid REFERENCES fonts (id) ON DELETE SET NULL,
    font_size              integer NOT NULL DEFAULT 0,
    position_in_container  integer NOT NULL DEFAULT 0,
    is_text_box            boolean NOT NULL DEFAULT false,
    max_size               integer,
    direction_layer_value  integer NOT NULL DEFAULT 0,
    video_support          boolean NOT NULL DEFAULT false,
    mapped_list            jsonb NOT NULL DEFAULT '[]',
    is_hidden              boolean NOT NULL DEFAULT false,
    virtual_count          integer NOT NULL DEFAULT 0,
    sort                   integer NOT NULL DEFAULT 0,
    CONSTRAINT scene_contents_scene_fkey FOREIGN KEY (scene_id, project_id)
        REFERENCES scenes (id, project_id) ON DELETE CASCADE,
    -- A content element may only sit in a repeater of its own scene.
    CONSTRAINT scene_contents_repeater_fkey FOREIGN KEY (repeater_item_id, scene_id)
        REFERENCES repeater_items (id, scene_id) ON DELETE SET NULL (repeater_item_id),
    CONSTRAINT scene_contents_scene_key_key UNIQUE (scene_id, key)
);
CREATE INDEX scene_contents_project_idx ON scene_contents (project_id, scene_id, sort, id);
CREATE INDEX scene_contents_font_idx ON scene_contents (font_id) WHERE font_id IS NOT NULL;

CREATE TABLE scene_colors (
    id            uuid PRIMARY KEY,
    scene_id      uuid NOT NULL,
    project_id    uuid NOT NULL,
    element_key   text NOT NULL,
    title         text NOT NULL DEFAULT '',
    icon          text NOT NULL DEFAULT '',
    default_color text NOT NULL DEFAULT '',
    attr_value    text NOT NULL DEFAULT 'fill'
        CONSTRAINT scene_colors_attr_value_check CHECK (attr_value IN ('fill', 'stroke', 'tracking', 'dropshadow')),
    sort          integer NOT NULL DEFAULT 0,
    CONSTRAINT scene_colors_scene_fkey FOREIGN KEY (scene_id, project_id)
        REFERENCES scenes (id, project_id) ON DELETE CASCADE,
    CONSTRAINT scene_colors_scene_key_key UNIQUE (scene_id, element_key)
);
CREATE INDEX scene_colors_project_idx ON scene_colors (project_id, scene_id, sort, id);

-- items: [{element_key, value, sort}] -- value objects of the preset, read and written whole.
CREATE TABLE scene_color_presets (
    id         uuid PRIMARY KEY,
    scene_id   uuid NOT NULL,
    project_id uuid NOT NULL,
    name       text NOT NULL,
    sort       integer NOT NULL DEFAULT 0,
    items      jsonb NOT NULL DEFAULT '[]',
    CONSTRAINT scene_color_presets_scene_fkey FOREIGN KEY (scene_id, project_id)
        REFERENCES scenes (id, project_id) ON DELETE CASCADE
);
CREATE INDEX scene_color_presets_project_idx ON scene_color_presets (project_id, scene_id, sort, id);
CREATE INDEX scene_color_presets_scene_idx ON scene_color_presets (scene_id, sort, id);

CREATE TABLE scene_characters (
    id         uuid PRIMARY KEY,
    scene_id   uuid NOT NULL,
    project_id uuid NOT NULL,
    key        text NOT NULL,
    name       text NOT NULL DEFAULT '',
    icon       text NOT NULL DEFAULT '',
    sort       integer NOT NULL DEFAULT 0,
    CONSTRAINT scene_characters_scene_fkey FOREIGN KEY (scene_id, project_id)
        REFERENCES scenes (id, project_id) ON DELETE CASCADE,
    CONSTRAINT scene_characters_id_project_key UNIQUE (id, project_id),
    CONSTRAINT scene_characters_scene_key_key UNIQUE (scene_id, key)
);
CREATE INDEX scene_characters_project_idx ON scene_characters (project_id, sort, id);

-- options: [{name, icon, value}]
CREATE TABLE scene_character_controllers (
    id            uuid PRIMARY KEY,
    character_id  uuid NOT NULL,
    project_id    uuid NOT NULL,
    name          text NOT NULL DEFAULT '',
    key           text NOT NULL,
    default_value text NOT NULL DEFAULT '',
    options       jsonb NOT NULL DEFAULT '[]',
    sort          integer NOT NULL DEFAULT 0,
    CONSTRAINT scene_character_controllers_character_fkey FOREIGN KEY (character_id, project_id)
        REFERENCES scene_characters (id, project_id) ON DELETE CASCADE
);
CREATE INDEX scene_character_controllers_project_idx ON scene_character_controllers (project_id, sort, id);
CREATE INDEX scene_character_controllers_character_idx ON scene_character_controllers (character_id, sort, id);

CREATE TABLE shared_layers (
    id                    uuid PRIMARY KEY,
    project_id            uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key                   text NOT NULL,
    title                 text NOT NULL DEFAULT '',
    type                  text NOT NULL DEFAULT '',
    default_value         text NOT NULL DEFAULT '',
    font_face             text NOT NULL DEFAULT '',
    justify               text NOT NULL DEFAULT '',
    font_size             integer NOT NULL DEFAULT 0,
    position_in_container integer NOT NULL DEFAULT 0,
    is_text_box           boolean NOT NULL DEFAULT false,
    sort                  integer NOT NULL DEFAULT 0,
    CONSTRAINT shared_layers_project_key_key UNIQUE (project_id, key)
);
CREATE INDEX shared_layers_project_idx ON shared_layers (project_id, sort, id);

CREATE TABLE shared_colors (
    id            uuid PRIMARY KEY,
    project_id    uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    element_key   text NOT NULL,
    title         text NOT NULL DEFAULT '',
    icon          text NOT NULL DEFAULT '',
    attr_value    text NOT NULL DEFAULT 'fill',
    default_color text NOT NULL DEFAULT '',
    sort          integer NOT NULL DEFAULT 0,
    CONSTRAINT shared_colors_project_key_key UNIQUE (project_id, element_key)
);
CREATE INDEX shared_colors_project_idx ON shared_colors (project_id, sort, id);

-- options: free-form objects (the contract leaves their shape open).
CREATE TABLE character_controllers (
    id         uuid PRIMARY KEY,
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name       text NOT NULL DEFAULT '',
    key        text NOT NULL,
    sort       integer NOT NULL DEFAULT 0,
    options    jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX character_controllers_project_idx ON character_controllers (project_id, sort, id);

-- controllers: [{name, key, value}]
CREATE TABLE character_presets (
    id          uuid PRIMARY KEY,
    project_id  uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key         uuid NOT NULL,
    name        text NOT NULL DEFAULT '',
    icon        text NOT NULL DEFAULT '',
    sort        integer NOT NULL DEFAULT 0,
    controllers jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX character_presets_project_idx ON character_presets (project_id, sort, id);

CREATE TABLE preset_stories (
    id           uuid PRIMARY KEY,
    project_id   uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name         text NOT NULL,
    description  text NOT NULL DEFAULT '',
    demo         text NOT NULL DEFAULT '',
    music_id     uuid REFERENCES music_tracks (id) ON DELETE SET NULL,
    sort         integer NOT NULL DEFAULT 0,
    is_published boolean NOT NULL DEFAULT true,
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT preset_stories_id_project_key UNIQUE (id, project_id)
);
CREATE INDEX preset_stories_project_idx ON preset_stories (project_id, sort, id);

-- The ordered scene selection of a story; a scene may appear more than once. Both foreign keys
-- carry the project, so a story can only hold scenes of its own project.
CREATE TABLE preset_story_scenes (
    preset_story_id uuid NOT NULL,
    position        integer NOT NULL,
    project_id      uuid NOT NULL,
    scene_id        uuid NOT NULL,
    duration_sec    double precision,
    PRIMARY KEY (preset_story_id, position),
    CONSTRAINT preset_story_scenes_story_fkey FOREIGN KEY (preset_story_id, project_id)
        REFERENCES preset_stories (id, project_id) ON DELETE CASCADE,
    CONSTRAINT preset_story_scenes_scene_fkey FOREIGN KEY (scene_id, project_id)
        REFERENCES scenes (id, project_id) ON DELETE CASCADE
);
CREATE INDEX preset_story_scenes_scene_idx ON preset_story_scenes (scene_id);

-- +goose Down
DROP TABLE preset_story_scenes;
DROP TABLE preset_stories;
DROP TABLE character_presets;
DROP TABLE character_controllers;
DROP TABLE shared_colors;
DROP TABLE shared_layers;
DROP TABLE scene_character_controllers;
DROP TABLE scene_characters;
DROP TABLE scene_color_presets;
DROP TABLE scene_colors;
DROP TABLE scene_contents;
DROP TABLE repeater_items;
DROP TABLE scenes;
DROP TABLE music_tracks;
DROP TABLE fonts;
