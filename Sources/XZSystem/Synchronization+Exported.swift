// Every target takes `Mutex` from here: the toolchain's Synchronization module is no package dependency
// Package.swift could declare, so it reaches the others through XZSystem, which they declare.
@_exported import Synchronization
