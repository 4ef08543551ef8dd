-- XZMusic library schema: the one source of the database layout.
-- Each "-- migration: NAME" section is applied once, in file order, by the binary's migrator.
-- Later layers append new sections; a released section is never edited.

-- migration: v1-catalogue
-- Unique keys are separate indexes rather than column constraints, so a bulk import into an empty
-- library can drop every index of these tables and rebuild it once at the end.
CREATE TABLE singer (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,          -- folded name: lower case, no diacritics, half width, simplified
    name_pinyin TEXT NOT NULL,       -- Han characters as toneless pinyin, run together
    name_initials TEXT NOT NULL,     -- pinyin initials ("zjl"), empty when there is no Han text
    first_letter TEXT NOT NULL,      -- A-Z, or '#' (index letter for the singer list)
    song_count INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX singer_by_name ON singer(name);
CREATE INDEX singer_by_sort ON singer(first_letter, name_pinyin);
-- Search ranks exact and prefix matches of these keys first and finds them by range scans; the
-- pinyin and initials indexes leave out rows where they add nothing to name_key.
CREATE INDEX singer_by_name_key ON singer(name_key);
CREATE INDEX singer_by_name_pinyin ON singer(name_pinyin) WHERE name_pinyin <> name_key;
CREATE INDEX singer_by_name_initials ON singer(name_initials) WHERE name_initials <> '';

CREATE TABLE album (
    id INTEGER PRIMARY KEY,
    singer_id INTEGER NOT NULL REFERENCES singer(id) ON DELETE CASCADE,
    title TEXT NOT NULL
);
CREATE UNIQUE INDEX album_by_singer ON album(singer_id, title);

-- song_key is the stable identity that stats and downloads refer to: "src:<source_id>" for feed
-- songs, "file:<absolute path>" for scanned files. Re-imports update rows in place by this key.
CREATE TABLE song (
    id INTEGER PRIMARY KEY,
    song_key TEXT NOT NULL,
    title TEXT NOT NULL,
    singer_id INTEGER NOT NULL REFERENCES singer(id),
    album_id INTEGER REFERENCES album(id),
    track INTEGER,
    year INTEGER,
    duration_ms INTEGER,
    audio_url TEXT NOT NULL DEFAULT '',
    lyrics_url TEXT NOT NULL DEFAULT '',
    local_path TEXT NOT NULL DEFAULT '',
    lyrics_path TEXT NOT NULL DEFAULT '',
    size INTEGER,
    sha256 TEXT NOT NULL DEFAULT '',
    file_mtime INTEGER,              -- seconds; with size, lets a rescan skip unchanged files
    added_at TEXT NOT NULL,          -- UTC, ISO 8601
    title_key TEXT NOT NULL,
    title_pinyin TEXT NOT NULL,
    title_initials TEXT NOT NULL
);
CREATE UNIQUE INDEX song_by_key ON song(song_key);
-- title_key too, so a singer's songs come out in title order for search.
CREATE INDEX song_by_singer ON song(singer_id, title_key);
CREATE INDEX song_by_album ON song(album_id);
CREATE INDEX song_by_title_key ON song(title_key);
CREATE INDEX song_by_title_pinyin ON song(title_pinyin) WHERE title_pinyin <> title_key;
CREATE INDEX song_by_title_initials ON song(title_initials) WHERE title_initials <> '';

-- Search documents: folded words, one token per CJK character, and pinyin forms of Han runs.
-- rowid is song.id / singer.id. The text is built in Swift and holds only folded terms separated
-- by spaces, so the ascii tokenizer splits it exactly there (and search can check a document's
-- terms itself). No prefix indexes: they cost a third of the import, and search looks up most
-- prefixes through the key indexes above. No column sizes: nothing ranks by bm25.
CREATE VIRTUAL TABLE song_search USING fts5(terms, tokenize = 'ascii', columnsize = 0);
CREATE VIRTUAL TABLE singer_search USING fts5(terms, tokenize = 'ascii', columnsize = 0);

-- migration: v3-downloads
-- Download tasks, one per song and kind. A row left 'running' whose owner_pid is no longer alive
-- was interrupted: the next resume picks it up from downloads/audio-<id>.part in the library folder.
CREATE TABLE download_task (
    id INTEGER PRIMARY KEY,
    song_key TEXT NOT NULL,          -- song.song_key; no foreign key, so a re-import keeps the task
    kind TEXT NOT NULL CHECK (kind IN ('audio', 'lyrics')),
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'paused', 'done', 'failed', 'cancelled')),
    url TEXT NOT NULL DEFAULT '',    -- the URL the .part was fetched from; a different one restarts it
    validator TEXT NOT NULL DEFAULT '', -- ETag or Last-Modified of the .part's bytes, sent as If-Range
    bytes_done INTEGER NOT NULL DEFAULT 0,
    bytes_total INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',   -- an outcome that is no error, e.g. "instrumental: no lyrics"
    path TEXT NOT NULL DEFAULT '',   -- where the finished file went
    owner_pid INTEGER,               -- the process running it, while state = 'running'
    created_at TEXT NOT NULL,        -- UTC, ISO 8601
    updated_at TEXT NOT NULL,
    UNIQUE (song_key, kind)
);
CREATE INDEX download_task_by_state ON download_task(state, id);

-- Lyrics lookups that found nothing, so the same miss is not asked again for a while
-- ('not_found', kept 7 days) or ever ('instrumental'). lookup_key: singer, title, album, seconds.
CREATE TABLE lyrics_miss (
    lookup_key TEXT PRIMARY KEY,
    reason TEXT NOT NULL CHECK (reason IN ('not_found', 'instrumental')),
    missed_at TEXT NOT NULL          -- UTC, ISO 8601
);

-- migration: v2-stats
-- Likes and play sessions name songs by song_key, never song.id, so they outlive re-imports and
-- rescans that drop a song; title and singer are snapshots that still name a removed song.
CREATE TABLE song_like (
    song_key TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    singer TEXT NOT NULL,
    liked_at TEXT NOT NULL           -- UTC, ISO 8601
);
CREATE INDEX song_like_by_time ON song_like(liked_at);

-- One row per pass through a track, written when it starts, every 10 s of audio, when it counts and
-- when it ends. end_reason is NULL while it plays, or for good when the program died during it.
CREATE TABLE play_session (
    id INTEGER PRIMARY KEY,
    song_key TEXT NOT NULL,
    title TEXT NOT NULL,
    singer TEXT NOT NULL,
    started_at TEXT NOT NULL,        -- UTC, ISO 8601
    updated_at TEXT NOT NULL,        -- UTC, ISO 8601: the last write
    played_ms INTEGER NOT NULL DEFAULT 0,   -- audio heard: pauses and seek jumps excluded
    position_ms INTEGER NOT NULL DEFAULT 0, -- where it ended, or stood at the last write
    duration_ms INTEGER,
    end_reason TEXT CHECK (end_reason IN ('completed', 'skipped', 'stopped', 'error', 'quit')),
    counted INTEGER NOT NULL DEFAULT 0 CHECK (counted IN (0, 1)), -- Last.fm's rule, set once crossed
    counted_at TEXT,                 -- UTC, ISO 8601
    skip INTEGER NOT NULL DEFAULT 0 CHECK (skip IN (0, 1))        -- moved on before it counted, after 5 s
);
CREATE INDEX play_session_by_song ON play_session(song_key);
CREATE INDEX play_session_by_start ON play_session(started_at);

-- Counted plays and like per song_key, kept by the triggers below, so search breaks ties with one
-- primary-key lookup per hit instead of counting sessions.
CREATE TABLE song_popularity (
    song_key TEXT PRIMARY KEY,
    plays INTEGER NOT NULL DEFAULT 0,
    liked INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TRIGGER play_session_counts_on_insert AFTER INSERT ON play_session WHEN NEW.counted = 1 BEGIN
    INSERT INTO song_popularity (song_key, plays) VALUES (NEW.song_key, 1)
        ON CONFLICT (song_key) DO UPDATE SET plays = plays + 1;
END;
CREATE TRIGGER play_session_counts_on_update AFTER UPDATE OF song_key, counted ON play_session
WHEN OLD.counted <> NEW.counted OR OLD.song_key <> NEW.song_key BEGIN
    UPDATE song_popularity SET plays = plays - OLD.counted WHERE song_key = OLD.song_key;
    INSERT INTO song_popularity (song_key, plays) VALUES (NEW.song_key, NEW.counted)
        ON CONFLICT (song_key) DO UPDATE SET plays = plays + NEW.counted;
END;
CREATE TRIGGER play_session_counts_on_delete AFTER DELETE ON play_session WHEN OLD.counted = 1 BEGIN
    UPDATE song_popularity SET plays = plays - 1 WHERE song_key = OLD.song_key;
END;
CREATE TRIGGER song_like_counts_on_insert AFTER INSERT ON song_like BEGIN
    INSERT INTO song_popularity (song_key, liked) VALUES (NEW.song_key, 1)
        ON CONFLICT (song_key) DO UPDATE SET liked = 1;
END;
CREATE TRIGGER song_like_counts_on_delete AFTER DELETE ON song_like BEGIN
    UPDATE song_popularity SET liked = 0 WHERE song_key = OLD.song_key;
END;

-- migration: v4-lyrics
-- The user's per-song lyric shift (`lyrics offset`), keyed like stats so it survives re-imports.
CREATE TABLE lyrics_adjustment (
    song_key TEXT PRIMARY KEY,
    offset_ms INTEGER NOT NULL
);

-- migration: v5-song-by-path
-- The player host names songs by file (MPD URIs) and finds their catalogue entry by path.
CREATE INDEX song_by_local_path ON song(local_path) WHERE local_path <> '';

-- migration: v6-stickers
-- MPD clients' stickers (name = value per song), keyed by song_key like likes and plays so they
-- outlive re-imports; no foreign key to song for the same reason. XZMusic's own statistics (like,
-- playcount, skipcount, lastplayed) are read from their tables, never copied here.
CREATE TABLE sticker (
    song_key TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (song_key, name)
) WITHOUT ROWID;
CREATE INDEX sticker_by_name ON sticker(name, value);

-- migration: v7-song-tags
-- Tags MPD clients browse, group and sort by. Several values of one tag are kept in one column,
-- separated by U+001F (tag text never holds control characters): `artists` lists every artist
-- when a tag names several ('' = the singer alone; singer.name then joins them with " / ").
ALTER TABLE song ADD COLUMN artists TEXT NOT NULL DEFAULT '';
ALTER TABLE song ADD COLUMN album_artist TEXT NOT NULL DEFAULT '';
ALTER TABLE song ADD COLUMN genre TEXT NOT NULL DEFAULT '';
ALTER TABLE song ADD COLUMN disc INTEGER;
ALTER TABLE song ADD COLUMN date TEXT NOT NULL DEFAULT '';  -- as tagged ("2008-05-01"); '' = year alone
ALTER TABLE song ADD COLUMN sample_rate INTEGER;
ALTER TABLE song ADD COLUMN channels INTEGER;
-- Files scanned before these tags were kept: forget their stamps, so the next rescan reads them again.
UPDATE song SET file_mtime = NULL WHERE song_key LIKE 'file:%';
-- Every tag value of a song, one a line, for case-insensitive substring matches (MPD's `search`):
-- the trigram index finds candidates for needles of three characters or more without a scan.
-- rowid is song.id; filled for existing songs here, kept by the writer after.
CREATE VIRTUAL TABLE song_text USING fts5(text, tokenize = 'trigram');
INSERT INTO song_text (rowid, text)
    SELECT song.id, song.title || char(10) || singer.name || char(10) || coalesce(album.title, '')
        || char(10) || coalesce(song.year, '') || char(10) || coalesce(song.track, '')
    FROM song JOIN singer ON singer.id = song.singer_id LEFT JOIN album ON album.id = song.album_id;

-- migration: v8-short-substrings
-- Each song's text is exactly the values MPD's `any` reads, one a line, so a match in it is a match
-- of a value; and it ends in two more newlines, so every character of it begins a trigram: a needle
-- of one or two characters finds its songs among the trigrams it begins, read through
-- song_text_terms, instead of a scan of every song.
DROP TABLE song_text;
CREATE VIRTUAL TABLE song_text USING fts5(text, tokenize = 'trigram');
INSERT INTO song_text (rowid, text)
    SELECT song.id, song.title || char(10)
        || (CASE WHEN song.artists <> '' THEN replace(song.artists, char(31), char(10)) ELSE singer.name END)
        || char(10) || coalesce(album.title, '') || char(10) || song.album_artist || char(10)
        || (CASE WHEN song.genre <> '' THEN replace(song.genre, char(31), char(10)) || char(10) ELSE '' END)
        || (CASE WHEN song.date <> '' THEN song.date ELSE coalesce(song.year, '') END) || char(10)
        || coalesce(song.track, '') || char(10) || coalesce(song.disc, '') || char(10) || char(10)
    FROM song JOIN singer ON singer.id = song.singer_id LEFT JOIN album ON album.id = song.album_id;
CREATE VIRTUAL TABLE song_text_terms USING fts5vocab(song_text, 'instance');

-- migration: v9-catalogue-version
-- A number that moves with every change to what a song record reads (song, singer and album rows),
-- whoever makes it: a host keeps songs' records between listings until it moves. Play statistics,
-- likes and stickers leave it alone, so music playing does not throw the records away.
CREATE TABLE catalogue_version (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
INSERT INTO catalogue_version (id, value) VALUES (1, 0);
CREATE TRIGGER song_inserted AFTER INSERT ON song BEGIN UPDATE catalogue_version SET value = value + 1; END;
CREATE TRIGGER song_updated AFTER UPDATE ON song BEGIN UPDATE catalogue_version SET value = value + 1; END;
CREATE TRIGGER song_deleted AFTER DELETE ON song BEGIN UPDATE catalogue_version SET value = value + 1; END;
CREATE TRIGGER singer_inserted AFTER INSERT ON singer BEGIN UPDATE catalogue_version SET value = value + 1; END;
CREATE TRIGGER singer_updated AFTER UPDATE ON singer BEGIN UPDATE catalogue_version SET value = value + 1; END;
CREATE TRIGGER singer_deleted AFTER DELETE ON singer BEGIN UPDATE catalogue_version SET value = value + 1; END;
CREATE TRIGGER album_inserted AFTER INSERT ON album BEGIN UPDATE catalogue_version SET value = value + 1; END;
CREATE TRIGGER album_updated AFTER UPDATE ON album BEGIN UPDATE catalogue_version SET value = value + 1; END;
CREATE TRIGGER album_deleted AFTER DELETE ON album BEGIN UPDATE catalogue_version SET value = value + 1; END;

-- migration: v10-audio-formats
-- Songs of every format. sample_format is the sample field of MPD's Format line ("16", "24", "f" for
-- float; '' = 16-bit or unknown).
ALTER TABLE song ADD COLUMN sample_format TEXT NOT NULL DEFAULT '';
-- Loudness measured by `loudness scan` for songs whose tags carry no ReplayGain, kept by the song's
-- stable key (never in the user's files); gains in dB against ReplayGain's reference, peaks linear.
-- file_size and file_mtime say which version of the file was measured.
CREATE TABLE loudness (
    song_key TEXT PRIMARY KEY,
    track_gain REAL NOT NULL,
    track_peak REAL NOT NULL,
    album_gain REAL,
    album_peak REAL,
    file_size INTEGER,
    file_mtime INTEGER,
    measured_at TEXT NOT NULL
) WITHOUT ROWID;
-- Tags are read through TagLib now (every value of repeated frames, every format): read every file
-- again on the next rescan.
UPDATE song SET file_mtime = NULL WHERE song_key LIKE 'file:%';

-- migration: v11-sticker-version
-- A number that moves with every sticker and like written, whoever writes it: a host tells its clients
-- waiting in `idle sticker` without being asked to by the process that wrote.
CREATE TABLE sticker_version (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
INSERT INTO sticker_version (id, value) VALUES (1, 0);
CREATE TRIGGER sticker_inserted AFTER INSERT ON sticker BEGIN UPDATE sticker_version SET value = value + 1; END;
CREATE TRIGGER sticker_updated AFTER UPDATE ON sticker BEGIN UPDATE sticker_version SET value = value + 1; END;
CREATE TRIGGER sticker_deleted AFTER DELETE ON sticker BEGIN UPDATE sticker_version SET value = value + 1; END;
CREATE TRIGGER song_like_inserted AFTER INSERT ON song_like BEGIN UPDATE sticker_version SET value = value + 1; END;
CREATE TRIGGER song_like_updated AFTER UPDATE ON song_like BEGIN UPDATE sticker_version SET value = value + 1; END;
CREATE TRIGGER song_like_deleted AFTER DELETE ON song_like BEGIN UPDATE sticker_version SET value = value + 1; END;

-- migration: v12-more-tags
-- The other tags MPD clients browse, filter and sort by (Composer, Performer, Conductor, Work, Grouping,
-- Label, the sort tags, OriginalDate, MusicBrainz ids ...), one column for all: entries "Name=value"
-- under MPD's tag names, separated by U+001E, in MPD's order of a song's tags ('' = none). One column
-- keeps a song one row (records, the catalogue version and the writer's change check as they are);
-- filters, `list` and `sort` read it through xz_tag_values, as they read the other columns, by scan.
ALTER TABLE song ADD COLUMN more_tags TEXT NOT NULL DEFAULT '';
-- Files scanned before these tags were kept: read them again on the next rescan.
UPDATE song SET file_mtime = NULL WHERE song_key LIKE 'file:%';
-- migration: v14-fetched-lyrics
-- Lyrics fetched for library songs (`lyrics fetch`), kept here rather than in the music folder, keyed
-- like stats so they survive re-imports. A not_found row is a miss asked again once it is older than
-- `lyrics_miss_days`; instrumental is kept for good.
CREATE TABLE fetched_lyrics (
    song_key TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('synced', 'plain', 'instrumental', 'not_found')),
    text TEXT NOT NULL DEFAULT '',
    fetched_at TEXT NOT NULL         -- UTC, ISO 8601
) WITHOUT ROWID;
-- migration: v15-catalogue-sources
-- Songs added from an open catalogue (`catalogue add`): the licence, the page they came from, the
-- checksums the source gives besides sha256, and whether the source allows keeping a copy (Jamendo
-- tracks may be streamable only). Kept by song key beside the song, which stays as a feed would make it.
CREATE TABLE song_origin (
    song_key TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    licence TEXT NOT NULL DEFAULT '',
    page TEXT NOT NULL DEFAULT '',
    md5 TEXT NOT NULL DEFAULT '',
    sha1 TEXT NOT NULL DEFAULT '',
    download_allowed INTEGER NOT NULL DEFAULT 1
) WITHOUT ROWID;
-- The last `catalogue search`, in listing order, so `catalogue add SOURCE --all` (or its IDs) adds what it
-- listed without asking the source again. song is the result as JSON.
CREATE TABLE catalogue_search_result (
    position INTEGER PRIMARY KEY,
    source TEXT NOT NULL,
    item_id TEXT NOT NULL,
    song TEXT NOT NULL
);

-- migration: v16-untagged-fields
-- A scanned file without a Title or Artist tag is named by its file name and "Unknown" for the prompt,
-- but MPD's records hold only the tags the file has: `untagged` marks the names the scan made up
-- (1: the title, 2: the artist), which protocol answers leave out. Songs named so before this column
-- came are read again by the next update.
ALTER TABLE song ADD COLUMN untagged INTEGER NOT NULL DEFAULT 0;
-- `stats` counts each of several artists: their lists, read from this index rather than every song.
CREATE INDEX song_by_artists ON song(artists) WHERE artists <> '';
UPDATE song SET file_mtime = NULL
    WHERE song_key LIKE 'file:%'
      AND (singer_id IN (SELECT id FROM singer WHERE name = 'Unknown') OR instr(local_path, '/' || title || '.') > 0);

-- migration: v17-station-listening
-- Internet radio: a station (a stream URL outside the catalogue) plays no song, so it is never a play and
-- has no play_session; each pass through it is a row here with the time heard, written when it starts,
-- every 10 s of audio and when it ends. name is the station's own (icy-name), as last heard.
CREATE TABLE station_session (
    id INTEGER PRIMARY KEY,
    url TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    started_at TEXT NOT NULL,        -- UTC, ISO 8601
    updated_at TEXT NOT NULL,        -- UTC, ISO 8601: the last write
    listened_ms INTEGER NOT NULL DEFAULT 0  -- audio heard: pauses and waits for bytes excluded
);
CREATE INDEX station_session_by_start ON station_session(started_at);

-- migration: v18-folder-playlists
-- Playlist files inside the music folder (.m3u, .m3u8, .pls, .xspf) as the last scan found them, by
-- absolute path, with their modification time: what lsinfo lists as `playlist:`, as MPD's database holds them.
CREATE TABLE folder_playlist (
    path TEXT PRIMARY KEY,
    mtime INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER folder_playlist_inserted AFTER INSERT ON folder_playlist BEGIN UPDATE catalogue_version SET value = value + 1; END;
CREATE TRIGGER folder_playlist_deleted AFTER DELETE ON folder_playlist BEGIN UPDATE catalogue_version SET value = value + 1; END;

-- migration: v19-cue-tracks
-- A CUE sheet's track is a song of its own (`album.cue/track0001`, its local_path), a part of its image:
-- cue_file is the image's path ('' for a whole file), cue_start and cue_end its bounds in CD frames (75 a
-- second; cue_end NULL: to the image's end), which the player turns into samples exactly.
ALTER TABLE song ADD COLUMN cue_file TEXT NOT NULL DEFAULT '';
ALTER TABLE song ADD COLUMN cue_start INTEGER;
ALTER TABLE song ADD COLUMN cue_end INTEGER;
-- Which files are images, for a folder's add that queues their tracks rather than the image.
CREATE INDEX song_by_cue_file ON song(cue_file) WHERE cue_file <> '';
-- has_cue_sheet: the file carries a CUE sheet in its tags (a CUESHEET comment), which MPD lists as a
-- playlist beside the song.
ALTER TABLE song ADD COLUMN has_cue_sheet INTEGER NOT NULL DEFAULT 0;
-- Files of the formats that carry sheets in their tags, scanned before those were noticed: read again
-- by the next update (the rest of the library is not).
UPDATE song SET file_mtime = NULL
    WHERE song_key LIKE 'file:%' AND (lower(local_path) LIKE '%.flac' OR lower(local_path) LIKE '%.wv'
                                      OR lower(local_path) LIKE '%.ape');

-- migration: v20-cue-track-tags
-- cue_tags: a CUE track's tags as MPD's cue parser builds them, in the sheet's order ("Name=value" entries
-- separated by U+001E; Track as written, "01"): its record lists them first, then the image's other tags.
-- cue_image_ms: the image's length, which MPD's `stats` and `count … group` count for each of its tracks.
ALTER TABLE song ADD COLUMN cue_tags TEXT NOT NULL DEFAULT '';
ALTER TABLE song ADD COLUMN cue_image_ms INTEGER;
-- The image's length is the start of its last track (the one running to the end) and that track's length.
UPDATE song SET cue_image_ms = (SELECT max(last.cue_start * 1000 / 75 + last.duration_ms) FROM song AS last
                                WHERE last.cue_file = song.cue_file AND last.cue_end IS NULL)
    WHERE cue_file <> '';
-- Tracks read before their tags' order was kept: read them again on the next update.
UPDATE song SET file_mtime = NULL WHERE cue_file <> '';

-- migration: v21-accounts
-- The library's users, for the Subsonic API. id 0 is the owner: the first user added, whom the terminal,
-- one-shot commands and MPD clients act as; every row of a user_id column that names nobody yet is the
-- owner's, so the likes and plays kept before any user existed are the owner's from the first.
CREATE TABLE library_user (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    is_admin INTEGER NOT NULL DEFAULT 0 CHECK (is_admin IN (0, 1)),
    may_jukebox INTEGER NOT NULL DEFAULT 0 CHECK (may_jukebox IN (0, 1)),
    email TEXT NOT NULL DEFAULT '',
    password_sealed BLOB NOT NULL,   -- the password sealed (AES-GCM) under the library's key file
    api_key_hash TEXT NOT NULL DEFAULT '', -- SHA-256 (hex) of the user's API key; '' = none
    created_at TEXT NOT NULL         -- UTC, ISO 8601
);
CREATE UNIQUE INDEX library_user_by_name ON library_user(name);
CREATE UNIQUE INDEX library_user_by_api_key ON library_user(api_key_hash) WHERE api_key_hash <> '';
-- Stars of albums and artists, per user (a song's star is its like). item_key names the album or artist
-- by what outlives a rescan: the artist's name, or the album's artist and title joined by U+001F.
CREATE TABLE user_star (
    user_id INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('album', 'artist')),
    item_key TEXT NOT NULL,
    starred_at TEXT NOT NULL,        -- UTC, ISO 8601
    PRIMARY KEY (user_id, kind, item_key)
) WITHOUT ROWID;
-- Ratings, 1 to 5, per user; a song by its song_key, albums and artists as in user_star.
CREATE TABLE user_rating (
    user_id INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('song', 'album', 'artist')),
    item_key TEXT NOT NULL,
    rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    PRIMARY KEY (user_id, kind, item_key)
) WITHOUT ROWID;
-- A user's saved play queue (Subsonic's savePlayQueue): its songs in order, the current one and where in it.
CREATE TABLE user_play_queue (
    user_id INTEGER PRIMARY KEY,
    current_position INTEGER,        -- index into the entries; NULL = none
    position_ms INTEGER NOT NULL DEFAULT 0,
    changed_at TEXT NOT NULL,        -- UTC, ISO 8601
    changed_by TEXT NOT NULL DEFAULT '' -- the client that saved it
);
CREATE TABLE user_play_queue_entry (
    user_id INTEGER NOT NULL,
    position INTEGER NOT NULL,
    song_key TEXT NOT NULL,
    PRIMARY KEY (user_id, position)
) WITHOUT ROWID;
-- Bookmarks: one place in a song per user and song.
CREATE TABLE user_bookmark (
    user_id INTEGER NOT NULL,
    song_key TEXT NOT NULL,
    position_ms INTEGER NOT NULL,
    comment TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,        -- UTC, ISO 8601
    changed_at TEXT NOT NULL,
    PRIMARY KEY (user_id, song_key)
) WITHOUT ROWID;
-- Internet radio stations: stream URLs with a name, for Subsonic clients and, as a stored playlist, MPD's.
CREATE TABLE radio_station (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    stream_url TEXT NOT NULL,
    homepage_url TEXT NOT NULL DEFAULT ''
);
-- Who owns a stored playlist (by its name, as MPD names it) and whether other users see it; a playlist
-- without a row is the owner's and public.
CREATE TABLE playlist_owner (
    playlist TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL,
    public INTEGER NOT NULL DEFAULT 0 CHECK (public IN (0, 1)),
    comment TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;

-- migration: v22-user-likes-and-plays
-- Likes and plays per library user; the rows kept before are the owner's (0), so nothing is lost.
-- song_popularity, MPD's like/playcount stickers and sticker_version stay the owner's: search, the
-- terminal and MPD clients see exactly what they saw before. Rows never change user.
CREATE TABLE song_like_per_user (
    user_id INTEGER NOT NULL DEFAULT 0,
    song_key TEXT NOT NULL,
    title TEXT NOT NULL,
    singer TEXT NOT NULL,
    liked_at TEXT NOT NULL,          -- UTC, ISO 8601
    PRIMARY KEY (user_id, song_key)
);
-- rowid kept: likes at the same second list in the order they were made.
INSERT INTO song_like_per_user (rowid, user_id, song_key, title, singer, liked_at)
    SELECT rowid, 0, song_key, title, singer, liked_at FROM song_like;
-- Dropping the table drops its index and triggers without firing them.
DROP TABLE song_like;
ALTER TABLE song_like_per_user RENAME TO song_like;
CREATE INDEX song_like_by_time ON song_like(user_id, liked_at);
CREATE TRIGGER song_like_counts_on_insert AFTER INSERT ON song_like WHEN NEW.user_id = 0 BEGIN
    INSERT INTO song_popularity (song_key, liked) VALUES (NEW.song_key, 1)
        ON CONFLICT (song_key) DO UPDATE SET liked = 1;
END;
CREATE TRIGGER song_like_counts_on_delete AFTER DELETE ON song_like WHEN OLD.user_id = 0 BEGIN
    UPDATE song_popularity SET liked = 0 WHERE song_key = OLD.song_key;
END;
CREATE TRIGGER song_like_inserted AFTER INSERT ON song_like WHEN NEW.user_id = 0 BEGIN
    UPDATE sticker_version SET value = value + 1;
END;
CREATE TRIGGER song_like_updated AFTER UPDATE ON song_like WHEN NEW.user_id = 0 OR OLD.user_id = 0 BEGIN
    UPDATE sticker_version SET value = value + 1;
END;
CREATE TRIGGER song_like_deleted AFTER DELETE ON song_like WHEN OLD.user_id = 0 BEGIN
    UPDATE sticker_version SET value = value + 1;
END;

ALTER TABLE play_session ADD COLUMN user_id INTEGER NOT NULL DEFAULT 0;
DROP INDEX play_session_by_start;
CREATE INDEX play_session_by_user_start ON play_session(user_id, started_at);
CREATE INDEX play_session_by_user_song ON play_session(user_id, song_key);
DROP TRIGGER play_session_counts_on_insert;
CREATE TRIGGER play_session_counts_on_insert AFTER INSERT ON play_session
WHEN NEW.counted = 1 AND NEW.user_id = 0 BEGIN
    INSERT INTO song_popularity (song_key, plays) VALUES (NEW.song_key, 1)
        ON CONFLICT (song_key) DO UPDATE SET plays = plays + 1;
END;
DROP TRIGGER play_session_counts_on_update;
CREATE TRIGGER play_session_counts_on_update AFTER UPDATE OF song_key, counted ON play_session
WHEN NEW.user_id = 0 AND (OLD.counted <> NEW.counted OR OLD.song_key <> NEW.song_key) BEGIN
    UPDATE song_popularity SET plays = plays - OLD.counted WHERE song_key = OLD.song_key;
    INSERT INTO song_popularity (song_key, plays) VALUES (NEW.song_key, NEW.counted)
        ON CONFLICT (song_key) DO UPDATE SET plays = plays + NEW.counted;
END;
DROP TRIGGER play_session_counts_on_delete;
CREATE TRIGGER play_session_counts_on_delete AFTER DELETE ON play_session
WHEN OLD.counted = 1 AND OLD.user_id = 0 BEGIN
    UPDATE song_popularity SET plays = plays - 1 WHERE song_key = OLD.song_key;
END;
