#!/usr/bin/env python3
"""Makes a small music folder for the API's client tests and prints what it holds as JSON: one song in each
format clients meet (MP3, FLAC, Ogg Vorbis, Opus, AAC in MP4, WAV), a song without an album tag, CJK, kana and Hangul names, ReplayGain tags
on one file, a cover picture, an LRC file, and a FLAC image with a two-track CUE sheet. Needs ffmpeg and metaflac.

Usage: make_library.py MUSIC_FOLDER > manifest.json
"""
import json
import os
import subprocess
import sys

# (path in the music folder, title, artist, album (None: no album tag), seconds, ffmpeg codec options)
FILES = [
    ("王菲/红豆/01 红豆.mp3", "红豆", "王菲", "红豆", 4, ["-c:a", "libmp3lame", "-b:a", "128k", "-id3v2_version", "3"]),
    ("王菲/红豆/02 当时的月亮.flac", "当时的月亮", "王菲", "红豆", 3, ["-c:a", "flac"]),
    ("ヨルシカ/夜/01 夜.ogg", "夜", "ヨルシカ", "夜", 3, ["-c:a", "libvorbis", "-q:a", "2"]),
    ("방탄소년단/Wings/01 피 땀 눈물.opus", "피 땀 눈물", "방탄소년단", "Wings", 3, ["-c:a", "libopus", "-b:a", "64k"]),
    ("The Beatles/Abbey Road/01 Come Together.m4a", "Come Together", "The Beatles", "Abbey Road", 3, ["-c:a", "aac", "-b:a", "96k"]),
    ("The Beatles/Abbey Road/02 Something.wav", "Something", "The Beatles", "Abbey Road", 2, ["-c:a", "pcm_s16le"]),
    ("The Beatles/Yesterday.mp3", "Yesterday", "The Beatles", None, 2, ["-c:a", "libmp3lame", "-b:a", "64k"]),
]

SHEET = """PERFORMER "光の楽団"
TITLE "光"
REM DATE 1999
REM GENRE Rock
FILE "image.flac" WAVE
  TRACK 01 AUDIO
    TITLE "一"
    INDEX 01 00:00:00
  TRACK 02 AUDIO
    TITLE "二"
    INDEX 01 00:04:00
"""

LRC = "[ti:红豆]\n[00:00.50]还没好好地感受\n[00:02.00]雪花绽放的气候\n"


def run(arguments):
    subprocess.run(arguments, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)


def encode(path, seconds, codec, tags):
    metadata = []
    for key, value in tags.items():
        if value is None:
            continue
        metadata += ["-metadata", f"{key}={value}"]
    run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
         f"sine=frequency=440:sample_rate=44100:duration={seconds}", "-ac", "2"] + codec + metadata + [path])


def main():
    music = os.path.abspath(sys.argv[1])
    songs = []
    for path, title, artist, album, seconds, codec in FILES:
        full = os.path.join(music, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        encode(full, seconds, codec, {"title": title, "artist": artist, "album": album, "track": path[path.rindex("/") + 1:][:2].lstrip("0"),
                                      "genre": "Pop", "date": "2001"})
        songs.append({"path": path, "title": title, "artist": artist, "album": album, "seconds": seconds,
                      "suffix": path.rsplit(".", 1)[1], "size": os.path.getsize(full)})
    # ReplayGain tags on one file.
    run(["metaflac", "--set-tag=REPLAYGAIN_TRACK_GAIN=-4.20 dB", "--set-tag=REPLAYGAIN_TRACK_PEAK=0.500000",
         os.path.join(music, "王菲/红豆/02 当时的月亮.flac")])
    # A folder picture for one album, an LRC beside one song.
    run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=300x200:d=1", "-frames:v", "1",
         os.path.join(music, "王菲/红豆/cover.jpg")])
    with open(os.path.join(music, "王菲/红豆/01 红豆.lrc"), "w", encoding="utf-8") as handle:
        handle.write(LRC)
    # A CD rip: a 9 s FLAC image and its sheet.
    rip = os.path.join(music, "光/rip")
    os.makedirs(rip, exist_ok=True)
    encode(os.path.join(rip, "image.flac"), 9, ["-c:a", "flac"], {"album": "光", "artist": "光の楽団"})
    with open(os.path.join(rip, "image.cue"), "w", encoding="utf-8") as handle:
        handle.write(SHEET)
    songs[1]["size"] = os.path.getsize(os.path.join(music, FILES[1][0]))
    songs.append({"path": "光/rip/image.cue/track0001", "title": "一", "artist": "光の楽団", "album": "光", "seconds": 4,
                  "suffix": "flac", "cue": True})
    songs.append({"path": "光/rip/image.cue/track0002", "title": "二", "artist": "光の楽団", "album": "光", "seconds": 5,
                  "suffix": "flac", "cue": True})
    json.dump({"music": music, "songs": songs, "lyrics": {"title": "红豆", "lines": ["还没好好地感受", "雪花绽放的气候"]}},
              sys.stdout, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
