// XZPlaybackEngine layer: libao output and the player.
//
// - AudioOutput / LibaoOutput / RawFileOutput / FifoOutput: where PCM goes, each with its `OutputType` (the words, `QueueItem` and the
//   events, are XZPlaybackValues).
// - PlayerStateMachine: the pure queue/transport logic (no I/O), tested on its own.
// - Player: the public entry point; commands go through the state machine and a mailbox
//   to PlaybackEngine, which runs on one dedicated audio thread.
