// Generated from schema.sql by scripts/embed-schema.sh (make schema). Do not edit.
extension Schema {
    public static let sql = #"""
-- XZMusic library schema: the one source of the database layout.
-- Each "-- migration: NAME" section is applied once, in file order, by the binary's migrator.
-- Later layers append new sections; a released section is never edited.

-- migration: v1-catalogue
CREATE TABLE singer (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    name_key TEXT NOT NULL,          -- folded name: lower case, no diacritics, half width, simplified
    name_pinyin TEXT NOT NULL,       -- Han characters as toneless pinyin, run together
    name_initials TEXT NOT NULL,     -- pinyin initials ("zjl"), empty when there is no Han text
    first_letter TEXT NOT NULL,      -- A-Z, or '#' (index letter for the singer list)
    song_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX singer_by_sort ON singer(first_letter, name_pinyin);

CREATE TABLE album (
    id INTEGER PRIMARY KEY,
    singer_id INTEGER NOT NULL REFERENCES singer(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    UNIQUE (singer_id, title)
);

-- song_key is the stable identity that stats and downloads refer to: "src:<source_id>" for feed
-- songs, "file:<absolute path>" for scanned files. Re-imports update rows in place by this key.
CREATE TABLE song (
    id INTEGER PRIMARY KEY,
    song_key TEXT NOT NULL UNIQUE,
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
CREATE INDEX song_by_singer ON song(singer_id);
CREATE INDEX song_by_album ON song(album_id);
CREATE INDEX song_by_title_key ON song(title_key);

-- Search documents: folded words, one token per CJK character, and pinyin forms of Han runs.
-- rowid is song.id / singer.id. The text is built in Swift, so the tokenizer only splits on spaces.
CREATE VIRTUAL TABLE song_search USING fts5(terms, tokenize = 'unicode61 remove_diacritics 0', prefix = '2 3');
CREATE VIRTUAL TABLE singer_search USING fts5(terms, tokenize = 'unicode61 remove_diacritics 0', prefix = '2 3');

"""#
}
