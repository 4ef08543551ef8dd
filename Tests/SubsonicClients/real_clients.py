#!/usr/bin/env python3
"""Drives a running server's Subsonic API with real client libraries from PyPI (py-opensonic, knuckles),
whose typed parsing is part of each check, and validates every JSON response against the spec's schema.

Checks: every endpoint the server's table holds (`--endpoints`), a Symfonium-style sync (token ping, then
search3 "" paged through artists, albums and songs: every song once), a DSub-style XML folder browse
(getIndexes, then getMusicDirectory down every folder: every song reached), XML carrying the JSON's fields,
ffmpeg decoding each transcoded format for the song's length, a raw Range request returning the file's bytes,
and users' stars kept apart.

Prints one line per endpoint: "PASS name (N checks)", "FAIL name: why" or "SKIP name: why", then
"N passed, N failed, N skipped". Exits 1 when an endpoint of the table failed.
"""
import argparse
import asyncio
import hashlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree

import requests

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import validate  # noqa: E402  (beside this file)

NAMESPACE = "{http://subsonic.org/restapi}"
# Elements whose `value` is their text in the spec's XML examples (a cue line's `value` is an attribute).
TEXT_ELEMENTS = {"genre", "lyrics", "line", "cue"}


class Results:
    def __init__(self, table):
        self.table = set(table)
        self.checks = {}
        self.failures = {}
        self.skipped = {}

    def run(self, endpoints, what, body):
        """Runs one check of one endpoint or of several that work together (create, read, update, delete):
        a failure fails them all. Skipped, by name, while one of them is not in the table."""
        endpoints = [endpoints] if isinstance(endpoints, str) else endpoints
        missing = [endpoint for endpoint in endpoints if endpoint not in self.table]
        if missing:
            for endpoint in endpoints:
                self.skipped.setdefault(endpoint, f"{', '.join(missing)} not in the server's endpoint table yet")
            return None
        for endpoint in endpoints:
            self.checks[endpoint] = self.checks.get(endpoint, 0) + 1
        try:
            return body()
        except Exception as error:  # every failure is reported, the run goes on
            for endpoint in endpoints:
                self.fail(endpoint, f"{what}: {type(error).__name__}: {str(error)[:400]}")
            return None

    def fail(self, endpoint, why):
        self.failures.setdefault(endpoint, []).append(why)

    def report(self):
        passed = failed = 0
        for endpoint in sorted(set(self.checks) | set(self.failures)):
            if endpoint in self.failures:
                failed += 1
                for why in self.failures[endpoint][:6]:
                    print(f"FAIL {endpoint}: {why}")
            else:
                passed += 1
                print(f"PASS {endpoint} ({self.checks[endpoint]} checks)")
        for endpoint in sorted(self.table - set(self.checks) - set(self.failures)):
            self.skipped.setdefault(endpoint, "in the table, no check drives it")
        for endpoint, why in sorted(self.skipped.items()):
            print(f"SKIP {endpoint}: {why}")
        print(f"{passed} passed, {failed} failed, {len(self.skipped)} skipped")
        return failed


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


class Recorder:
    """Every JSON body a client received, by endpoint, for schema validation at the end."""

    def __init__(self):
        self.bodies = []

    def add(self, url, content_type, body):
        if "json" not in (content_type or ""):
            return
        name = str(url).split("?")[0].rsplit("/", 1)[-1]
        if name.endswith(".view"):
            name = name[:-5]
        self.bodies.append((name, body))


RECORDER = Recorder()


class Raw:
    """Plain HTTP as any client sends it: token auth, `f=` as asked, repeated parameters kept."""

    def __init__(self, base, user, password):
        self.base, self.user, self.password = base, user, password

    def auth(self):
        salt = secrets.token_hex(8)
        return [("u", self.user), ("t", hashlib.md5((self.password + salt).encode()).hexdigest()), ("s", salt)]

    def get(self, endpoint, params=(), fmt="json", headers=None, auth=None, method="GET"):
        query = list(self.auth() if auth is None else auth) + [("v", "1.16.1"), ("c", "raw-test")]
        if fmt:
            query.append(("f", fmt))
        query += list(params)
        url = f"{self.base}/rest/{endpoint}"
        if method == "POST":
            response = requests.post(url, data=query, headers=headers, timeout=60)
        else:
            response = requests.request(method, url, params=query, headers=headers, timeout=60)
        RECORDER.add(response.url, response.headers.get("Content-Type"), response.content)
        return response

    def json(self, endpoint, params=(), ok=True, **options):
        body = self.get(endpoint, params, **options).json()["subsonic-response"]
        if ok:
            expect(body["status"] == "ok", f"{endpoint} failed: {body.get('error')}")
        return body

    def xml(self, endpoint, params=()):
        response = self.get(endpoint, params, fmt="xml")
        expect(response.headers.get("Content-Type", "").startswith("text/xml"), f"XML content type: {response.headers.get('Content-Type')}")
        root = ElementTree.fromstring(response.content)
        expect(root.tag == NAMESPACE + "subsonic-response", f"root element {root.tag}")
        expect(root.get("status") == "ok", f"{endpoint} XML failed: {response.text[:300]}")
        return root


def xml_holds_json(value, element, path):
    """The element holds the JSON object's fields: scalars as attributes (or its text), objects as one child
    element, arrays as elements repeated under their key."""
    scalar_keys = set()
    for key, field in value.items():
        children = element.findall(NAMESPACE + key)
        here = f"{path}/{key}"
        if isinstance(field, dict):
            expect(len(children) == 1, f"{here}: {len(children)} elements for one object")
            xml_holds_json(field, children[0], here)
        elif isinstance(field, list):
            expect(len(children) == len(field), f"{here}: {len(children)} elements for {len(field)} items")
            for index, (item, child) in enumerate(zip(field, children)):
                if isinstance(item, dict):
                    xml_holds_json(item, child, f"{here}[{index}]")
                else:
                    expect(scalar_text(item) == (child.text or ""), f"{here}[{index}]: {child.text!r} for {item!r}")
        elif key == "value" and element.tag[len(NAMESPACE):] in TEXT_ELEMENTS:
            expect(key not in element.attrib and scalars_equal(field, element.text or ""), f"{here}: not the element's text")
        else:
            expect(key in element.attrib, f"{here}: no such attribute")
            scalar_keys.add(key)
            expect(scalars_equal(field, element.attrib[key]), f"{here}: {element.attrib[key]!r} for {field!r}")
    extra = set(element.attrib) - scalar_keys
    expect(not extra, f"{path}: XML attributes the JSON lacks: {sorted(extra)}")


def xml_holds_json_in_any_order(body, root, key, endpoint):
    """For answers in a random order: the XML's songs are the JSON's songs, each with the same fields."""
    items = {item["id"]: item for item in body[key].get("song", [])}
    elements = root.find(NAMESPACE + key).findall(NAMESPACE + "song")
    expect(sorted(items) == sorted(element.get("id") for element in elements), f"{endpoint}: other songs in the XML")
    for element in elements:
        xml_holds_json(items[element.get("id")], element, f"{endpoint}/{key}/song")


def scalar_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def scalars_equal(value, text):
    if isinstance(value, bool):
        return text == ("true" if value else "false")
    if isinstance(value, (int, float)):
        try:
            return float(text) == float(value)
        except ValueError:
            return False
    return text == value


class Clients:
    """py-opensonic and knuckles signed in as one user, recording what they receive."""

    def __init__(self, host, port, user, password):
        import aiohttp
        import knuckles
        import knuckles._api
        import libopensonic

        class RecordingResponse(aiohttp.ClientResponse):
            async def read(self):
                body = await super().read()
                RECORDER.add(self.url, self.headers.get("Content-Type"), body)
                return body

        self.opensonic = libopensonic.Connection(f"http://{host}", user, password, port=port, app_name="py-opensonic-test")
        # The session the connection would make lazily, made on its loop with responses that record.
        async def session():
            return aiohttp.ClientSession(response_class=RecordingResponse)
        self.opensonic._async._sess = asyncio.run_coroutine_threadsafe(session(), self.opensonic._loop).result()

        if not getattr(knuckles._api.requests, "_recording", False):
            original_get, original_post = requests.get, requests.post

            class RecordingRequests:
                _recording = True

                def __getattr__(self, name):
                    return getattr(requests, name)

                @staticmethod
                def get(*args, **kwargs):
                    response = original_get(*args, **kwargs)
                    RECORDER.add(response.url, response.headers.get("Content-Type"), response.content)
                    return response

                @staticmethod
                def post(*args, **kwargs):
                    response = original_post(*args, **kwargs)
                    RECORDER.add(response.url, response.headers.get("Content-Type"), response.content)
                    return response

            knuckles._api.requests = RecordingRequests()
        self.knuckles = knuckles.Subsonic(url=f"{host}:{port}", user=user, password=password, client="knuckles-test",
                                          use_https=False)

    def read(self, response):
        """The body of a py-opensonic binary response (read on its loop)."""
        return asyncio.run_coroutine_threadsafe(response.read(), self.opensonic._loop).result()

    def close(self):
        self.opensonic.cleanup()


def ffprobe_seconds(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path],
                         check=True, capture_output=True, text=True).stdout.strip()
    return float(out)


def decoded_seconds(path):
    """The length ffmpeg decodes from the file, every packet read."""
    result = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "s16le", "-ac", "2", "-ar", "44100", "-"],
                            capture_output=True)
    expect(result.returncode == 0, f"ffmpeg cannot decode it: {result.stderr[:300]!r}")
    return len(result.stdout) / (44100 * 4)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--other-user", required=True)
    parser.add_argument("--other-password", required=True)
    parser.add_argument("--api-key")
    parser.add_argument("--spec", help="the spec's openapi folder; without it no schema is checked")
    parser.add_argument("--manifest", required=True, help="make_library.py's output")
    parser.add_argument("--endpoints", required=True, help="the server's endpoint table, comma-separated")
    arguments = parser.parse_args()

    manifest = json.load(open(arguments.manifest, encoding="utf-8"))
    results = Results(arguments.endpoints.split(","))
    base = f"http://{arguments.host}:{arguments.port}"
    raw = Raw(base, arguments.user, arguments.password)
    other = Raw(base, arguments.other_user, arguments.other_password)
    expected_songs = manifest["songs"]
    work = tempfile.mkdtemp(prefix="clients-")

    # The host scans its music folder as it starts.
    deadline = time.time() + 120
    while time.time() < deadline:
        status = raw.json("getScanStatus")["scanStatus"]
        if not status["scanning"] and status.get("count", 0) >= len(expected_songs):
            break
        time.sleep(0.3)

    clients = Clients(arguments.host, arguments.port, arguments.user, arguments.password)
    opensonic, knuckles = clients.opensonic, clients.knuckles
    try:
        context = run_system(results, raw, clients, arguments)
        songs = run_sync(results, raw, clients, expected_songs)
        run_browsing(results, raw, clients, expected_songs, songs)
        run_lists(results, raw, clients, songs)
        run_media(results, raw, clients, manifest, songs, work)
        run_annotation(results, raw, other, clients, songs)
        run_queue_and_bookmarks(results, raw, other, clients, songs)
        run_playlists_radio_jukebox(results, raw, other, clients, songs)
        run_users_and_scan(results, raw, other, clients, arguments)
        run_unsupported(results, raw)
        del context
    finally:
        clients.close()
        shutil.rmtree(work, ignore_errors=True)

    if arguments.spec:
        check_schemas(results, arguments.spec)
    else:
        print("note: no spec folder given: JSON responses were not validated against its schemas")
    return 1 if results.report() else 0


def check_schemas(results, spec):
    """Every JSON body received, against its endpoint's response schema."""
    cache = {}
    for endpoint, body in RECORDER.bodies:
        if endpoint not in results.table:
            continue
        try:
            validator = validate.validator_for(spec, {"endpoint": endpoint}, cache)
        except (OSError, KeyError, ValueError) as error:
            results.fail(endpoint, f"no schema for it in the spec: {error}")
            continue
        document = json.loads(body)
        errors = list(validator.iter_errors(document))
        results.checks[endpoint] = results.checks.get(endpoint, 0) + 1
        for error in errors[:3]:
            results.fail(endpoint, f"schema: {validate.describe(error)}")


def run_system(results, raw, clients, arguments):
    opensonic, knuckles = clients.opensonic, clients.knuckles

    def ping():
        expect(opensonic.ping() is True, "py-opensonic ping")
        expect(knuckles.system.ping().status == "ok", "knuckles ping")
        body = raw.json("ping")
        expect(body["openSubsonic"] is True and body["version"] == "1.16.1" and body["type"] == "xzmusic", f"envelope {body}")
        # JSONP, as a browser client asks.
        text = raw.get("ping", fmt="jsonp", params=[("callback", "cb")]).text
        expect(text.startswith("cb(") and text.endswith(");"), f"JSONP {text[:80]}")
        xml_holds_json(body, raw.xml("ping"), "ping")
        # Wrong credentials: error 40, in the format asked.
        bad = raw.json("ping", ok=False, auth=[("u", arguments.user), ("p", "wrong")])
        expect(bad["status"] == "failed" and bad["error"]["code"] == 40, f"wrong password answered {bad}")
        # Plain and hex-encoded passwords, and a form POST.
        raw.json("ping", auth=[("u", arguments.user), ("p", arguments.password)])
        raw.json("ping", auth=[("u", arguments.user), ("p", "enc:" + arguments.password.encode().hex())])
        raw.json("ping", method="POST")
    results.run("ping", "ping", ping)

    results.run("getLicense", "getLicense", lambda: (
        # py-opensonic 10.4 hands back the whole envelope here.
        expect(opensonic.get_license()["license"]["valid"] is True, "py-opensonic license"),
        expect(knuckles.system.get_license().valid is True, "knuckles license"),
        xml_holds_json(raw.json("getLicense"), raw.xml("getLicense"), "getLicense")))

    def extensions():
        listed = {extension.name: extension.versions for extension in opensonic.get_open_subsonic_extensions()}
        expect("formPost" in listed, f"extensions {listed}")
        # No credentials needed.
        body = raw.json("getOpenSubsonicExtensions", auth=[])
        expect({e["name"] for e in body["openSubsonicExtensions"]} == set(listed), "unauthenticated list")
        for name, endpoints in {"songLyrics": ["getLyricsBySongId"], "apiKeyAuthentication": ["tokenInfo"],
                                "indexBasedQueue": ["getPlayQueueByIndex", "savePlayQueueByIndex"],
                                "transcodeOffset": ["stream"]}.items():
            if name in listed:
                for endpoint in endpoints:
                    expect(endpoint in results.table, f"{name} is listed but {endpoint} is not answered")
    results.run("getOpenSubsonicExtensions", "extensions", extensions)

    def token_info():
        expect(arguments.api_key, "no API key was made for the test")
        body = raw.json("tokenInfo", auth=[("apiKey", arguments.api_key)])
        expect(body["tokenInfo"]["username"] == arguments.user, f"tokenInfo {body}")
        import libopensonic
        keyed = libopensonic.Connection(f"http://{arguments.host}", api_key=arguments.api_key, port=arguments.port)
        try:
            expect(keyed.token_info().username == arguments.user, "py-opensonic tokenInfo")
            expect(keyed.ping() is True, "py-opensonic ping by API key")
        finally:
            keyed.cleanup()
        wrong = raw.json("ping", ok=False, auth=[("apiKey", "not-a-key")])
        expect(wrong["error"]["code"] == 44, f"a wrong key answered {wrong}")
        both = raw.json("ping", ok=False, auth=[("apiKey", arguments.api_key), ("u", arguments.user), ("p", arguments.password)])
        expect(both["error"]["code"] == 43, f"key and password together answered {both}")
    results.run("tokenInfo", "API key", token_info)
    return None


def run_sync(results, raw, clients, expected):
    """Symfonium's sync: search3 "" through artists, albums, songs, 500 at a time (and 2 at a time, to page)."""
    opensonic, knuckles = clients.opensonic, clients.knuckles
    songs = {}

    def sync(page):
        seen = {"artist": [], "album": [], "song": []}
        for kind in seen:
            offset = 0
            while True:
                counts = {f"{k}Count": (page if k == kind else 0) for k in seen}
                counts[f"{kind}Offset"] = offset
                body = raw.json("search3", [("query", '""')] + [(k, str(v)) for k, v in counts.items()])
                items = body["searchResult3"].get(kind, [])
                seen[kind] += items
                if len(items) < page:
                    break
                offset += page
        ids = [song["id"] for song in seen["song"]]
        expect(len(ids) == len(set(ids)), f"a song came twice paging by {page}")
        titles = sorted(song["title"] for song in seen["song"])
        expect(titles == sorted(song["title"] for song in expected), f"songs by {page}: {titles}")
        # Each song's album is among the albums synced, an "[Unknown Album]" too.
        albums = [album["id"] for album in seen["album"]]
        expect(len(albums) == len(set(albums)), f"an album came twice paging by {page}")
        expect({song["albumId"] for song in seen["song"]} <= set(albums), f"albums by {page}: {albums}")
        return seen

    def symfonium():
        expect(opensonic.ping(), "token ping")
        seen = sync(500)
        sync(2)
        for song in seen["song"]:
            songs[song["title"]] = song
        expect(len(seen["album"]) >= 5 and len(seen["artist"]) >= 5, f"{len(seen['album'])} albums, {len(seen['artist'])} artists")
        # The typed clients read the same pages.
        typed = opensonic.search3("", artist_count=500, album_count=500, song_count=500)
        expect(sorted(song.title for song in typed.song) == sorted(songs), "py-opensonic search3")
        typed = knuckles.searching.search("", song_count=500, album_count=500, artist_count=500)
        expect(sorted(song.title for song in typed.songs) == sorted(songs), "knuckles search3")
        # An empty query written as nothing at all lists everything too.
        body = raw.json("search3", [("query", ""), ("songCount", "500")])
        expect(len(body["searchResult3"].get("song", [])) == len(expected), "query=''")
        # Pinyin finds 王菲's songs.
        body = raw.json("search3", [("query", "wangfei")])
        expect(any(song["artist"] == "王菲" for song in body["searchResult3"].get("song", [])), f"pinyin search {body}")
        xml_holds_json(raw.json("search3", [("query", "wangfei")]), raw.xml("search3", [("query", "wangfei")]), "search3")
    results.run("search3", "Symfonium-style sync", symfonium)

    def search2():
        body = raw.json("search2", [("query", "红豆")])
        expect(any(song["title"] == "红豆" for song in body["searchResult2"].get("song", [])), f"search2 {body}")
        expect(any(song.title == "红豆" for song in clients.opensonic.search2("红豆").song), "py-opensonic search2")
        xml_holds_json(body, raw.xml("search2", [("query", "红豆")]), "search2")
    results.run("search2", "search2", search2)

    if not songs:  # without search3, the album lists give the songs
        body = raw.json("getAlbumList2", [("type", "alphabeticalByName"), ("size", "500")], ok=False)
        for album in body.get("albumList2", {}).get("album", []):
            for song in raw.json("getAlbum", [("id", album["id"])], ok=False).get("album", {}).get("song", []):
                songs[song["title"]] = song
    return songs


def run_browsing(results, raw, clients, expected, songs):
    opensonic, knuckles = clients.opensonic, clients.knuckles

    def folders():
        # py-opensonic 10.4 iterates the musicFolders object itself, not its musicFolder list: knuckles parses it.
        listed = knuckles.browsing.get_music_folders()
        expect(len(listed) == 1 and str(listed[0].id) == "1", f"music folders {listed}")
        folders = raw.json("getMusicFolders")["musicFolders"]["musicFolder"]
        expect([type(folder["id"]) for folder in folders] == [int], f"music folder ids are integers: {folders}")
        xml_holds_json(raw.json("getMusicFolders"), raw.xml("getMusicFolders"), "getMusicFolders")
    results.run("getMusicFolders", "music folders", folders)

    def dsub_browse():
        """DSub: getIndexes, then every folder down, in XML; every song is reached once."""
        root = raw.xml("getIndexes")
        pending = [artist.get("id") for index in root.iter(NAMESPACE + "index") for artist in index.findall(NAMESPACE + "artist")]
        reached = [child.get("title") for child in root.iter(NAMESPACE + "child") if child.get("isDir") == "false"]
        visited = set()
        while pending:
            folder = pending.pop()
            expect(folder not in visited, f"folder {folder} listed twice")
            visited.add(folder)
            directory = raw.xml("getMusicDirectory", [("id", folder)]).find(NAMESPACE + "directory")
            expect(directory is not None and directory.get("id") == folder, f"directory {folder}")
            for child in directory.findall(NAMESPACE + "child"):
                if child.get("isDir") == "true":
                    pending.append(child.get("id"))
                else:
                    reached.append(child.get("title"))
                    expect(child.get("parent") == folder, f"{child.get('title')}'s parent {child.get('parent')} is not {folder}")
        expect(sorted(reached) == sorted(song["title"] for song in expected), f"reached {sorted(reached)}")
        # The typed clients read the same folders.
        indexes = opensonic.get_indexes()
        first = indexes.index[0].artist[0].id
        expect(opensonic.get_music_directory(first).id == first, "py-opensonic getMusicDirectory")
        expect(knuckles.browsing.get_music_directory(first).id == first, "knuckles getMusicDirectory")
        xml_holds_json(raw.json("getIndexes"), raw.xml("getIndexes"), "getIndexes")
        xml_holds_json(raw.json("getMusicDirectory", [("id", first)]), raw.xml("getMusicDirectory", [("id", first)]), "getMusicDirectory")
    results.run(["getIndexes", "getMusicDirectory"], "DSub-style browse", dsub_browse)
    results.run("getMusicDirectory", "DSub-style browse", lambda: expect(
        raw.json("getMusicDirectory", [("id", "fo-..")], ok=False)["status"] == "failed", "a made-up folder is not found"))

    def artists():
        listed = opensonic.get_artists()
        names = [artist.name for index in listed.index for artist in index.artist]
        expect("王菲" in names and "방탄소년단" in names, f"artists {names}")
        by_letter = {index.name: [artist.name for artist in index.artist] for index in listed.index}
        expect("王菲" in by_letter.get("W", []), f"王菲 under W: {by_letter}")
        sort_names = {artist["name"]: artist.get("sortName") for index in raw.json("getArtists")["artists"]["index"]
                      for artist in index["artist"]}
        expect(sort_names.get("王菲") == "wangfei", f"sort names {sort_names}")
        expect(len(knuckles.browsing.get_artists()) == len(names), "knuckles artists")
        xml_holds_json(raw.json("getArtists"), raw.xml("getArtists"), "getArtists")
        return listed
    listed = results.run("getArtists", "artists", artists)

    def artist_and_album():
        artist_id = songs["红豆"]["artistId"]
        artist = opensonic.get_artist(artist_id)
        expect(artist.name == "王菲" and len(artist.album) == 1, f"artist {artist}")
        expect(knuckles.browsing.get_artist(artist_id).name == "王菲", "knuckles artist")
        xml_holds_json(raw.json("getArtist", [("id", artist_id)]), raw.xml("getArtist", [("id", artist_id)]), "getArtist")
        return artist.album[0].id
    album_id = results.run("getArtist", "artist", artist_and_album)

    def album():
        album_id = songs["红豆"]["albumId"]
        typed = opensonic.get_album(album_id)
        expect(sorted(song.title for song in typed.song) == sorted(["红豆", "当时的月亮"]), f"album songs {[s.title for s in typed.song]}")
        expect(len(knuckles.browsing.get_album(album_id).songs) == 2, "knuckles album")
        cue = opensonic.get_album(songs["一"]["albumId"])
        expect([song.title for song in cue.song] == ["一", "二"], f"CUE album {cue.song}")
        xml_holds_json(raw.json("getAlbum", [("id", album_id)]), raw.xml("getAlbum", [("id", album_id)]), "getAlbum")
        expect(raw.json("getAlbum", [("id", "al-999999")], ok=False)["error"]["code"] == 70, "a missing album is 70")
    results.run("getAlbum", "album", album)

    def id3_walk():
        """Symfonium, Tempo, Feishin: getArtists, each artist's albums, each album's songs; every song once."""
        reached = []
        for index in raw.json("getArtists")["artists"].get("index", []):
            for artist in index["artist"]:
                albums = raw.json("getArtist", [("id", artist["id"])])["artist"].get("album", [])
                expect(artist.get("albumCount") == len(albums), f"{artist['name']}: albumCount {artist.get('albumCount')}, {len(albums)} albums")
                for album in albums:
                    body = raw.json("getAlbum", [("id", album["id"])])["album"]
                    listed = body.get("song", [])
                    expect(body["songCount"] == len(listed) and all(song["albumId"] == album["id"] for song in listed),
                           f"album {album['name']}: {body['songCount']} songs, {[song['albumId'] for song in listed]}")
                    reached += [song["title"] for song in listed]
        expect(sorted(reached) == sorted(song["title"] for song in expected), f"reached {sorted(reached)}")
        # A song without an album tag is in its artist's "[Unknown Album]", as Navidrome has it.
        loose = songs["Yesterday"]["albumId"]
        typed = opensonic.get_album(loose)
        expect(typed.name == "[Unknown Album]" and [song.title for song in typed.song] == ["Yesterday"], f"unknown album {typed}")
        expect(knuckles.browsing.get_album(loose).name == "[Unknown Album]", "knuckles unknown album")
        xml_holds_json(raw.json("getAlbum", [("id", loose)]), raw.xml("getAlbum", [("id", loose)]), "getAlbum")
        expect(raw.json("getAlbum", [("id", loose + "x")], ok=False)["error"]["code"] == 70, "a malformed album id is 70")
    results.run(["getArtists", "getArtist", "getAlbum"], "ID3 walk", id3_walk)

    def song():
        # A CUE track streams as FLAC cut from its image; every other song as its file.
        expect(songs["一"].get("transcodedSuffix") == "flac" and songs["一"].get("transcodedContentType") == "audio/flac",
               f"CUE track {songs['一']}")
        expect("transcodedSuffix" not in songs["红豆"], f"MP3 {songs['红豆']}")
        for title, listed in songs.items():
            typed = opensonic.get_song(listed["id"])
            expect(typed.title == title and typed.duration == listed.get("duration"), f"song {title}")
        tagged = opensonic.get_song(songs["当时的月亮"]["id"])
        expect(tagged.replay_gain is not None and abs(tagged.replay_gain.track_gain + 4.2) < 1e-6, f"ReplayGain tags {tagged.replay_gain}")
        first = songs["피 땀 눈물"]
        expect(knuckles.browsing.get_song(first["id"]).title == "피 땀 눈물", "knuckles song")
        expect(first["suffix"] == "opus", f"opus suffix {first}")
        xml_holds_json(raw.json("getSong", [("id", first["id"])]), raw.xml("getSong", [("id", first["id"])]), "getSong")
        for bad in ["so-99999999", "so--1", "so-" + "9" * 30, "../etc/passwd", "so-1\u0000"]:
            expect(raw.json("getSong", [("id", bad)], ok=False)["status"] == "failed", f"getSong {bad!r}")
    results.run("getSong", "songs", song)

    def genres():
        listed = {genre.value: genre for genre in opensonic.get_genres()}
        expect("Pop" in listed and listed["Pop"].song_count >= 6, f"genres {listed}")
        expect("Pop" in {genre.value for genre in knuckles.browsing.get_genres()}, "knuckles genres")
        xml_holds_json(raw.json("getGenres"), raw.xml("getGenres"), "getGenres")
    results.run("getGenres", "genres", genres)

    # knuckles 1.2 needs every field of an artist's info, which the spec leaves optional: py-opensonic parses it.
    for endpoint, call in [("getArtistInfo", lambda aid: opensonic.get_artist_info(aid)),
                           ("getArtistInfo2", lambda aid: opensonic.get_artist_info2(aid))]:
        results.run(endpoint, endpoint, lambda endpoint=endpoint, call=call: (
            call(songs["红豆"]["artistId"]),
            xml_holds_json(raw.json(endpoint, [("id", songs["红豆"]["artistId"])]),
                           raw.xml(endpoint, [("id", songs["红豆"]["artistId"])]), endpoint)))
    for endpoint, call in [("getAlbumInfo", lambda aid: opensonic.get_album_info(aid)),
                           ("getAlbumInfo2", lambda aid: opensonic.get_album_info2(aid))]:
        results.run(endpoint, endpoint, lambda endpoint=endpoint, call=call: (
            call(songs["红豆"]["albumId"]),
            knuckles.browsing.get_album_info(songs["红豆"]["albumId"]) if endpoint == "getAlbumInfo2" else None,
            xml_holds_json(raw.json(endpoint, [("id", songs["红豆"]["albumId"])]),
                           raw.xml(endpoint, [("id", songs["红豆"]["albumId"])]), endpoint)))
    del listed, album_id


def run_lists(results, raw, clients, songs):
    opensonic, knuckles = clients.opensonic, clients.knuckles
    types = ["random", "newest", "frequent", "recent", "highest", "starred", "alphabeticalByName", "alphabeticalByArtist"]

    def album_lists(endpoint, typed):
        for kind in types + ["byYear", "byGenre"]:
            extra = {"byYear": [("fromYear", "1990"), ("toYear", "2010")], "byGenre": [("genre", "Pop")]}.get(kind, [])
            body = raw.json(endpoint, [("type", kind), ("size", "500")] + extra)
            key = "albumList2" if endpoint == "getAlbumList2" else "albumList"
            albums = body[key].get("album", [])
            if kind in ("random", "newest", "alphabeticalByName", "alphabeticalByArtist"):
                expect(len(albums) >= 5, f"{kind}: {len(albums)} albums")
            if kind == "byYear":
                expect(len(albums) >= 5, f"byYear 1990-2010: {len(albums)}")
            typed(kind)
        xml_holds_json(raw.json(endpoint, [("type", "newest")]), raw.xml(endpoint, [("type", "newest")]), endpoint)
        expect(raw.json(endpoint, [("type", "nonsense")], ok=False)["status"] == "failed", "an unknown type")
        expect(raw.json(endpoint, [], ok=False)["error"]["code"] == 10, "type is required")

    def typed2(kind):
        if kind == "byYear":
            opensonic.get_album_list2(kind, size=500, from_year=1990, to_year=2010)
            knuckles.lists.get_album_list_by_year(1990, 2010, num_of_albums=500)
        elif kind == "byGenre":
            opensonic.get_album_list2(kind, size=500, genre="Pop")
            knuckles.lists.get_album_list_by_genre("Pop", num_of_albums=500)
        else:
            opensonic.get_album_list2(kind, size=500)
    results.run("getAlbumList2", "album lists", lambda: album_lists("getAlbumList2", typed2))

    # py-opensonic 10.4 reads getAlbumList's folders (Child) as AlbumID3: knuckles parses them.
    def typed1(kind):
        lists = knuckles.lists
        if kind == "byYear":
            lists.get_album_list_by_year_non_id3(1990, 2010, num_of_albums=500)
        elif kind == "byGenre":
            lists.get_album_list_by_genre_non_id3("Pop", num_of_albums=500)
        else:
            getattr(lists, {"random": "get_album_list_random_non_id3", "newest": "get_album_list_newest_non_id3",
                            "frequent": "get_album_list_frequent_non_id3", "recent": "get_album_list_recent_non_id3",
                            "highest": "get_album_list_highest_non_id3", "starred": "get_album_list_starred_non_id3",
                            "alphabeticalByName": "get_album_list_alphabetical_by_name_non_id3",
                            "alphabeticalByArtist": "get_album_list_alphabetical_by_artist_non_id3"}[kind])(num_of_albums=500)
    results.run("getAlbumList", "album lists", lambda: album_lists("getAlbumList", typed1))

    def random_songs():
        typed = opensonic.get_random_songs(size=3)
        expect(len(typed) == 3, f"{len(typed)} random songs")
        expect(len(knuckles.lists.get_random_songs(num_of_songs=500)) == len(songs), "knuckles: every song once")
        xml_holds_json_in_any_order(raw.json("getRandomSongs", [("size", "500")]), raw.xml("getRandomSongs", [("size", "500")]),
                                    "randomSongs", "getRandomSongs")
    results.run("getRandomSongs", "random songs", random_songs)

    def by_genre():
        typed = opensonic.get_songs_by_genre("Pop", count=500)
        expect(len(typed) == 7, f"{len(typed)} Pop songs")
        expect(len(knuckles.lists.get_songs_by_genre("Rock", num_of_songs=500)) == 2, "knuckles: the CUE tracks are Rock")
        xml_holds_json(raw.json("getSongsByGenre", [("genre", "Pop")]), raw.xml("getSongsByGenre", [("genre", "Pop")]), "getSongsByGenre")
    results.run("getSongsByGenre", "songs by genre", by_genre)

    results.run("getNowPlaying", "now playing", lambda: (
        opensonic.get_now_playing(), knuckles.lists.get_now_playing(),
        xml_holds_json(raw.json("getNowPlaying"), raw.xml("getNowPlaying"), "getNowPlaying")))
    results.run("getTopSongs", "top songs", lambda: (
        opensonic.get_top_songs("王菲"), knuckles.browsing.get_top_songs("王菲", 10),
        xml_holds_json(raw.json("getTopSongs", [("artist", "王菲")]), raw.xml("getTopSongs", [("artist", "王菲")]), "getTopSongs")))
    results.run("getSimilarSongs", "similar songs", lambda: (
        opensonic.get_similar_songs(songs["红豆"]["id"]),
        knuckles.browsing.get_similar_songs_non_id3(songs["红豆"]["id"], 10),
        xml_holds_json_in_any_order(raw.json("getSimilarSongs", [("id", songs["红豆"]["id"]), ("count", "500")]),
                                    raw.xml("getSimilarSongs", [("id", songs["红豆"]["id"]), ("count", "500")]),
                                    "similarSongs", "getSimilarSongs")))
    results.run("getSimilarSongs2", "similar songs", lambda: (
        opensonic.get_similar_songs2(songs["红豆"]["artistId"]),
        knuckles.browsing.get_similar_songs(songs["红豆"]["artistId"], 10),
        xml_holds_json_in_any_order(raw.json("getSimilarSongs2", [("id", songs["红豆"]["artistId"]), ("count", "500")]),
                                    raw.xml("getSimilarSongs2", [("id", songs["红豆"]["artistId"]), ("count", "500")]),
                                    "similarSongs2", "getSimilarSongs2")))


def run_media(results, raw, clients, manifest, songs, work):
    opensonic, knuckles = clients.opensonic, clients.knuckles
    music = manifest["music"]
    files = [song for song in manifest["songs"] if not song.get("cue")]

    def raw_streams():
        for file in files:
            song = songs[file["title"]]
            with open(os.path.join(music, file["path"]), "rb") as handle:
                data = handle.read()
            whole = raw.get("stream", [("id", song["id"]), ("format", "raw")], fmt=None)
            expect(whole.status_code == 200 and whole.content == data, f"{file['path']}: raw stream is not the file")
            part = raw.get("stream", [("id", song["id"])], fmt=None, headers={"Range": "bytes=100-1099"})
            expect(part.status_code == 206 and part.content == data[100:1100], f"{file['path']}: Range 100-1099")
            expect(part.headers.get("Content-Range") == f"bytes 100-1099/{len(data)}", f"Content-Range {part.headers.get('Content-Range')}")
            tail = raw.get("stream", [("id", song["id"])], fmt=None, headers={"Range": f"bytes={len(data) - 10}-"})
            expect(tail.status_code == 206 and tail.content == data[-10:], "an open range to the end")
            head = raw.get("stream", [("id", song["id"])], fmt=None, method="HEAD")
            expect(head.status_code == 200 and int(head.headers.get("Content-Length", -1)) == len(data), "HEAD")
        # py-opensonic and knuckles read a stream.
        first = songs["红豆"]
        data = clients.read(opensonic.stream(first["id"], tformat="raw"))
        expect(len(data) == first["size"], "py-opensonic raw stream")
        expect(requests.get(knuckles.media_retrieval.stream(first["id"]), timeout=60).status_code == 200, "knuckles stream URL")

    def transcodes():
        for file in files:
            song = songs[file["title"]]
            for fmt, suffix in [("mp3", "mp3"), ("opus", "opus"), ("ogg", "ogg"), ("flac", "flac")]:
                response = raw.get("stream", [("id", song["id"]), ("format", fmt), ("maxBitRate", "128")], fmt=None)
                expect(response.status_code == 200 and response.headers.get("Content-Type", "").startswith("audio/"),
                       f"{file['path']} as {fmt}: {response.status_code} {response.headers.get('Content-Type')} {response.content[:200]!r}")
                path = os.path.join(work, f"t.{suffix}")
                with open(path, "wb") as handle:
                    handle.write(response.content)
                seconds = decoded_seconds(path)
                expect(abs(seconds - file["seconds"]) < 0.25, f"{file['path']} as {fmt} decodes to {seconds:.2f} s, not {file['seconds']}")
        # A CUE track transcodes to its own length, and a time offset skips into it.
        track = songs["二"]
        response = raw.get("stream", [("id", track["id"]), ("format", "mp3")], fmt=None)
        path = os.path.join(work, "cue.mp3")
        with open(path, "wb") as handle:
            handle.write(response.content)
        expect(abs(decoded_seconds(path) - 5) < 0.3, f"CUE track 2 decodes to {decoded_seconds(path):.2f} s")
        response = raw.get("stream", [("id", songs["红豆"]["id"]), ("format", "opus"), ("timeOffset", "2")], fmt=None)
        with open(path, "wb") as handle:
            handle.write(response.content)
        expect(abs(decoded_seconds(path) - 2) < 0.3, f"timeOffset 2 of 4 s decodes to {decoded_seconds(path):.2f} s")
        data = clients.read(opensonic.stream(songs["夜"]["id"], tformat="mp3"))
        with open(path, "wb") as handle:
            handle.write(data)
        expect(abs(decoded_seconds(path) - 3) < 0.3, "py-opensonic mp3 stream")

    def hostile_streams():
        """Parameters at their edges answer with an error or a clamped stream, never a server failure."""
        song = songs["红豆"]["id"]
        for params, headers in [
            ([("id", song), ("maxBitRate", "4294967297"), ("format", "mp3")], None),
            ([("id", song), ("timeOffset", "99999999999999999999"), ("format", "opus")], None),
            ([("id", song), ("timeOffset", "-5"), ("format", "mp3")], None),
            ([("id", song), ("format", "exe")], None),
            ([("id", "so-" + "9" * 25)], None), ([("id", "fo-Li4vLi4vZXRj")], None), ([("id", "x" * 5000)], None),
            ([("id", song)], {"Range": "bytes=99999999999-"}), ([("id", song)], {"Range": "bytes=5-2"}),
        ]:
            response = raw.get("stream", params, fmt=None, headers=headers)
            expect(response.status_code < 500, f"{params} {headers}: HTTP {response.status_code}")
            if "json" in response.headers.get("Content-Type", "") or "xml" in response.headers.get("Content-Type", ""):
                expect(b"failed" in response.content, f"{params}: {response.content[:200]!r}")
        expect(raw.get("stream", [("id", song)], fmt=None, headers={"Range": "bytes=99999999999-"}).status_code in (200, 206, 416),
               "a range past the end")

    results.run("stream", "raw streams and ranges", raw_streams)
    results.run("stream", "parameters at their edges", hostile_streams)
    results.run("stream", "transcodes", transcodes)

    def download():
        first = songs["当时的月亮"]
        with open(os.path.join(music, "王菲/红豆/02 当时的月亮.flac"), "rb") as handle:
            data = handle.read()
        expect(clients.read(opensonic.download(first["id"])) == data, "py-opensonic download")
        from pathlib import Path
        saved = knuckles.media_retrieval.download(first["id"], Path(work))
        expect(open(saved, "rb").read() == data, "knuckles download")
        expect(raw.get("download", [("id", songs["一"]["id"])], fmt=None).status_code == 200, "a CUE track downloads")
    results.run("download", "download", download)

    def cover():
        album = songs["红豆"]["coverArt"]
        data = clients.read(opensonic.get_cover_art(album, size=100))
        path = os.path.join(work, "cover.img")
        with open(path, "wb") as handle:
            handle.write(data)
        size = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", path],
                              check=True, capture_output=True, text=True).stdout.strip()
        expect(size == "100,67", f"a 300x200 cover at size 100 is {size}")
        from pathlib import Path
        knuckles.media_retrieval.get_cover_art(album, Path(work), 50)
        expect(raw.json("getCoverArt", [("id", "al-99999")], ok=False)["error"]["code"] == 70, "a missing cover is 70")
    results.run("getCoverArt", "cover art", cover)

    lyrics = manifest["lyrics"]

    def get_lyrics():
        typed = opensonic.get_lyrics(artist="王菲", title=lyrics["title"])
        expect(all(line in (typed.value or "") for line in lyrics["lines"]), f"lyrics {typed}")
        expect(all(line in (knuckles.media_retrieval.get_lyrics("王菲", lyrics["title"]).lyrics or "") for line in lyrics["lines"]),
               "knuckles lyrics")
        xml_holds_json(raw.json("getLyrics", [("artist", "王菲"), ("title", lyrics["title"])]),
                       raw.xml("getLyrics", [("artist", "王菲"), ("title", lyrics["title"])]), "getLyrics")
    results.run("getLyrics", "lyrics", get_lyrics)

    def by_song_id():
        typed = opensonic.get_lyrics_by_song_id(songs[lyrics["title"]]["id"])
        expect(typed and typed[0].synced, f"structured lyrics {typed}")
        expect([line.value for line in typed[0].line] == lyrics["lines"], f"lines {typed[0].line}")
        expect([line.start for line in typed[0].line] == [500, 2000], f"starts {[line.start for line in typed[0].line]}")
        params = [("id", songs[lyrics["title"]]["id"])]
        xml_holds_json(raw.json("getLyricsBySongId", params), raw.xml("getLyricsBySongId", params), "getLyricsBySongId")
    results.run("getLyricsBySongId", "synced lyrics", by_song_id)


def run_annotation(results, raw, other, clients, songs):
    opensonic, knuckles = clients.opensonic, clients.knuckles
    song, album, artist = songs["夜"]["id"], songs["夜"]["albumId"], songs["夜"]["artistId"]

    def star():
        expect(opensonic.star(sids=[song], album_ids=[album], artist_ids=[artist]), "py-opensonic star")
        knuckles.media_annotation.star_song(songs["红豆"]["id"])
        starred = raw.json("getStarred2")["starred2"]
        expect({s["id"] for s in starred.get("song", [])} == {song, songs["红豆"]["id"]}, f"starred songs {starred}")
        expect([a["id"] for a in starred.get("album", [])] == [album], "starred album")
        expect([a["id"] for a in starred.get("artist", [])] == [artist], "starred artist")
        expect("starred" in raw.json("getSong", [("id", song)])["song"], "a starred song says when")
        # Another user's stars are their own.
        expect(not other.json("getStarred2")["starred2"].get("song"), "bob sees none of alice's stars")
        expect("starred" not in other.json("getSong", [("id", song)])["song"], "nor her star on the song")
    results.run(["star", "getStarred2"], "star", star)

    def starred_lists():
        typed = opensonic.get_starred2()
        expect(len(typed.song) == 2, f"py-opensonic starred2 {typed}")
        expect(len(knuckles.lists.get_starred().songs) == 2, "knuckles starred2")
        expect(len(opensonic.get_starred().song) == 2, "starred (folders)")
        expect(len(knuckles.lists.get_starred_non_id3().songs) == 2, "knuckles starred")
        xml_holds_json(raw.json("getStarred2"), raw.xml("getStarred2"), "getStarred2")
        xml_holds_json(raw.json("getStarred"), raw.xml("getStarred"), "getStarred")
    results.run(["getStarred2", "getStarred"], "starred", starred_lists)

    def unstar():
        expect(opensonic.unstar(sids=[song], album_ids=[album], artist_ids=[artist]), "py-opensonic unstar")
        knuckles.media_annotation.unstar_song(songs["红豆"]["id"])
        expect(not raw.json("getStarred2")["starred2"].get("song"), "nothing starred")
    results.run(["unstar", "getStarred2"], "unstar", unstar)

    def rating():
        expect(opensonic.set_rating(song, 4), "py-opensonic rating")
        expect(raw.json("getSong", [("id", song)])["song"].get("userRating") == 4, "rated 4")
        knuckles.media_annotation.set_rating(song, 2)
        expect(raw.json("getSong", [("id", song)])["song"].get("userRating") == 2, "rated 2")
        expect("userRating" not in other.json("getSong", [("id", song)])["song"], "bob has no rating of it")
        knuckles.media_annotation.remove_rating(song)
        expect("userRating" not in raw.json("getSong", [("id", song)])["song"], "rating 0 removes it")
        expect(raw.json("setRating", [("id", song), ("rating", "9")], ok=False)["status"] == "failed", "rating 9")
    results.run("setRating", "rating", rating)

    def scrobble():
        before = raw.json("getSong", [("id", song)])["song"].get("playCount", 0)
        expect(opensonic.scrobble(song, submission=True), "py-opensonic scrobble")
        import datetime
        knuckles.media_annotation.scrobble([song], [datetime.datetime.now() - datetime.timedelta(minutes=1)], True)
        after = raw.json("getSong", [("id", song)])["song"]
        expect(after.get("playCount", 0) == before + 2, f"two plays: {before} then {after.get('playCount')}")
        expect("played" in after, "played is set")
        expect(other.json("getSong", [("id", song)])["song"].get("playCount", 0) == 0, "bob's plays are his")
        raw.json("scrobble", [("id", song), ("submission", "false")])
    results.run("scrobble", "scrobble", scrobble)


def run_queue_and_bookmarks(results, raw, other, clients, songs):
    opensonic, knuckles = clients.opensonic, clients.knuckles
    ids = [songs["红豆"]["id"], songs["夜"]["id"], songs["一"]["id"]]

    def queue():
        expect(opensonic.save_play_queue(ids, current=ids[1], position=1500), "py-opensonic save")
        typed = opensonic.get_play_queue()
        expect([entry.id for entry in typed.entry] == ids and typed.current == ids[1] and typed.position == 1500, f"queue {typed}")
        knuckles.bookmarks.save_play_queue(ids[:2], ids[0], 10)
        expect(len(knuckles.bookmarks.get_play_queue().songs) == 2, "knuckles queue")
        xml_holds_json(raw.json("getPlayQueue"), raw.xml("getPlayQueue"), "getPlayQueue")
        expect(not other.json("getPlayQueue").get("playQueue", {}).get("entry"), "bob's queue is his own")
    results.run(["savePlayQueue", "getPlayQueue"], "play queue", queue)

    def by_index():
        expect(opensonic.save_play_queue_by_index(ids, current_index=2, position=300), "py-opensonic by index")
        typed = opensonic.get_play_queue_by_index()
        expect(typed.current_index == 2 and [entry.id for entry in typed.entry] == ids, f"by index {typed}")
        xml_holds_json(raw.json("getPlayQueueByIndex"), raw.xml("getPlayQueueByIndex"), "getPlayQueueByIndex")
    results.run(["savePlayQueueByIndex", "getPlayQueueByIndex"], "play queue by index", by_index)

    def bookmarks():
        expect(opensonic.create_bookmark(ids[0], 2500, comment="here"), "py-opensonic bookmark")
        knuckles.bookmarks.create_bookmark(ids[1], 1000, "there")
        typed = opensonic.get_bookmarks()
        expect(sorted((b.entry.id, b.position) for b in typed) == sorted([(ids[0], 2500), (ids[1], 1000)]), f"bookmarks {typed}")
        expect(len(knuckles.bookmarks.get_bookmarks()) == 2, "knuckles bookmarks")
        expect(not other.json("getBookmarks")["bookmarks"].get("bookmark"), "bob's bookmarks are his own")
        xml_holds_json(raw.json("getBookmarks"), raw.xml("getBookmarks"), "getBookmarks")
        expect(opensonic.delete_bookmark(ids[0]), "delete")
        knuckles.bookmarks.delete_bookmark(ids[1])
        expect(not raw.json("getBookmarks")["bookmarks"].get("bookmark"), "none left")
    results.run(["createBookmark", "getBookmarks", "deleteBookmark"], "bookmarks", bookmarks)


def run_playlists_radio_jukebox(results, raw, other, clients, songs):
    opensonic, knuckles = clients.opensonic, clients.knuckles
    ids = [songs["红豆"]["id"], songs["夜"]["id"]]

    def playlists():
        expect(opensonic.create_playlist(name="通勤 mix", song_ids=ids), "py-opensonic create")
        playlist_id = next(p.id for p in opensonic.get_playlists() if p.name == "通勤 mix")
        expect([entry.id for entry in opensonic.get_playlist(playlist_id).entry] == ids, "created with its songs")
        expect(opensonic.update_playlist(playlist_id, song_ids_to_add=[songs["一"]["id"]], song_indices_to_remove=[0]), "update")
        typed = opensonic.get_playlist(playlist_id)
        expect([entry.id for entry in typed.entry] == [ids[1], songs["一"]["id"]], f"updated {typed.entry}")
        expect(any(p.id == playlist_id for p in opensonic.get_playlists()), "listed")
        # knuckles 1.2 refuses the spec's `readonly` field of a playlist: py-opensonic parses them.
        xml_holds_json(raw.json("getPlaylist", [("id", playlist_id)]), raw.xml("getPlaylist", [("id", playlist_id)]), "getPlaylist")
        xml_holds_json(raw.json("getPlaylists"), raw.xml("getPlaylists"), "getPlaylists")
        expect(other.json("updatePlaylist", [("playlistId", playlist_id), ("name", "mine")], ok=False)["status"] == "failed",
               "bob may not change alice's playlist")
        expect(opensonic.delete_playlist(playlist_id), "delete")
        expect(not any(p.id == playlist_id for p in opensonic.get_playlists()), "gone")
    results.run(["createPlaylist", "getPlaylists", "getPlaylist", "updatePlaylist", "deletePlaylist"], "playlists", playlists)

    def radio():
        expect(opensonic.create_internet_radio_station("http://127.0.0.1:9/stream.mp3", "测试电台", homepage_url="http://127.0.0.1:9/"), "create")
        stations = opensonic.get_internet_radio_stations()
        station = next(s for s in stations if s.name == "测试电台")
        expect(opensonic.update_internet_radio_station(station.id, "http://127.0.0.1:9/other.mp3", "电台二"), "update")
        # knuckles 1.2 reads a station's home page as "homepageUrl", which the spec spells homePageUrl.
        expect(any(s["name"] == "电台二" for s in raw.json("getInternetRadioStations")["internetRadioStations"]["internetRadioStation"]),
               "renamed")
        xml_holds_json(raw.json("getInternetRadioStations"), raw.xml("getInternetRadioStations"), "getInternetRadioStations")
        expect(other.json("createInternetRadioStation", [("streamUrl", "http://x/"), ("name", "n")], ok=False)["error"]["code"] == 50,
               "only admins keep stations")
        expect(opensonic.delete_internet_radio_station(station.id), "delete")
    results.run(["createInternetRadioStation", "getInternetRadioStations", "updateInternetRadioStation",
                 "deleteInternetRadioStation"], "radio", radio)

    def jukebox():
        status = opensonic.jukebox_control("status")
        expect(status is not None, "status")
        # py-opensonic 10.4 sends the ids of "add" only.
        opensonic.jukebox_control("clear")
        opensonic.jukebox_control("add", sids=[songs["红豆"]["id"], songs["夜"]["id"]])
        listed = opensonic.jukebox_control("get")
        expect([entry.id for entry in listed.entry or []] == [songs["红豆"]["id"], songs["夜"]["id"]], f"jukebox playlist {listed}")
        raw.json("jukeboxControl", [("action", "set"), ("id", songs["一"]["id"])])
        listed = opensonic.jukebox_control("get")
        expect([entry.id for entry in listed.entry or []] == [songs["一"]["id"]], f"set: {listed}")
        knuckles.jukebox.get()
        opensonic.jukebox_control("stop")
        opensonic.jukebox_control("clear")
        xml_holds_json(raw.json("jukeboxControl", [("action", "status")]), raw.xml("jukeboxControl", [("action", "status")]), "jukeboxControl")
        expect(other.json("jukeboxControl", [("action", "status")], ok=False)["error"]["code"] == 50, "bob has no jukebox role")
    results.run("jukeboxControl", "jukebox", jukebox)


def run_users_and_scan(results, raw, other, clients, arguments):
    opensonic, knuckles = clients.opensonic, clients.knuckles

    def users():
        me = opensonic.get_user(arguments.user)
        expect(me.username == arguments.user and me.admin_role, f"user {me}")
        # knuckles 1.2 needs a user's password in getUser, which no server of the spec sends.
        names = {user.username for user in opensonic.get_users()}
        expect({arguments.user, arguments.other_user} <= names, f"users {names}")
        xml_holds_json(raw.json("getUser", [("username", arguments.user)]), raw.xml("getUser", [("username", arguments.user)]), "getUser")
        xml_holds_json(raw.json("getUsers"), raw.xml("getUsers"), "getUsers")
        expect(other.json("getUsers", ok=False)["error"]["code"] == 50, "bob is no admin")
        expect(opensonic.create_user("carol", "pw-carol", "carol@example.org"), "create")
        carol = Raw(raw.base, "carol", "pw-carol")
        carol.json("ping")
        expect(opensonic.update_user("carol", email="c@example.org"), "update")
        expect(opensonic.change_password("carol", "pw-2"), "change password")
        expect(carol.json("ping", ok=False)["error"]["code"] == 40, "the old password no longer works")
        carol.password = "pw-2"
        carol.json("ping")
        expect(opensonic.delete_user("carol"), "delete")
        expect(carol.json("ping", ok=False)["error"]["code"] == 40, "a removed user cannot sign in")
    results.run(["getUser", "getUsers", "createUser", "updateUser", "changePassword", "deleteUser"], "users", users)

    def scan():
        status = opensonic.get_scan_status()
        expect(status.scanning is False, f"scan status {status}")
        started = opensonic.start_scan()
        expect(started is not None, "start")
        knuckles.media_library_scanning.get_scan_status()
        deadline = time.time() + 60
        while raw.json("getScanStatus")["scanStatus"]["scanning"] and time.time() < deadline:
            time.sleep(0.2)
        xml_holds_json(raw.json("getScanStatus"), raw.xml("getScanStatus"), "getScanStatus")
    results.run(["getScanStatus", "startScan"], "scan", scan)


def run_unsupported(results, raw):
    """Features the server does not have answer as the spec says: an empty list, or error 50 (no role)."""
    for endpoint in ["getPodcasts", "getNewestPodcasts", "getShares", "getChatMessages", "getVideos"]:
        results.run(endpoint, "an empty list", lambda endpoint=endpoint: raw.json(endpoint))
    for endpoint in ["refreshPodcasts", "createPodcastChannel", "deletePodcastChannel", "deletePodcastEpisode",
                     "downloadPodcastEpisode", "getPodcastEpisode", "createShare", "updateShare", "deleteShare",
                     "addChatMessage", "getVideoInfo", "getCaptions", "hls", "getAvatar"]:
        results.run(endpoint, "not authorized", lambda endpoint=endpoint: expect(
            raw.json(endpoint, [("id", "1")], ok=False)["error"]["code"] in (0, 50, 70), f"{endpoint} answered"))


if __name__ == "__main__":
    sys.exit(main())
