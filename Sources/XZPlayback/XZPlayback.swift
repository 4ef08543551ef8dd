// XZPlayback layer: libao output and the player.
//
// - OutputSpec / AudioOutput / LibaoOutput / RawFileOutput: where PCM goes.
// - PlayerStateMachine: the pure queue/transport logic (no I/O), tested on its own.
// - Player: the public entry point; commands go through the state machine and a mailbox
//   to PlaybackEngine, which runs on one dedicated audio thread.
