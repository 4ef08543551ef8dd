// XZDownloader layer: songs and lyrics fetched for offline use.
//
// DownloadManager keeps tasks in the library database (download_task), streams each body into
// <library>/downloads/<kind>-<id>.part, resumes with checked Range requests, verifies length,
// size, SHA-256 and that the audio decodes, and only then moves the file into songs/ in the same
// transaction that sets song.local_path. The decisions (resume, retry, redirect, lyrics choice)
// are plain values in TransferPlan.swift and LyricsJob.swift, tested without a network.
