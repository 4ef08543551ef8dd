import Foundation
import XCTest
import XZAudio
import XZCatalogue
import XZCommands
import XZDownloader
import XZEncoders
import XZHostCore
import XZHostAssembly
import XZMPRIS
import XZPlaybackValues
import XZProtocol
import XZServer
import XZStats
import XZStreamOutput
import XZSystem

/// Every layer's error follows one idiom (`KindedError`): built as `XError.kind("message")`, matched by kind
/// with `catch XError.kind`, `case`, `==` and hashing, whatever its words, and it keeps the words it was given.
final class KindedErrorTests: XCTestCase {
    /// The idiom, for one type: `kind` and `other` are two of its kinds.
    private func assertIdiom<E: KindedError>(_ kind: E, _ other: E, file: StaticString = #filePath, line: UInt = #line) {
        let error = kind("told in other words")
        XCTAssertEqual(error.message, "told in other words", file: file, line: line)
        XCTAssertEqual(error.kind, kind.kind, file: file, line: line)
        XCTAssertEqual(error, kind, "same kind, other words", file: file, line: line)
        XCTAssertNotEqual(error, other, file: file, line: line)
        XCTAssertNotEqual(kind("same words"), other("same words"), "same words, other kind", file: file, line: line)
        XCTAssertEqual(Set([error, kind, other]).count, 2, file: file, line: line)
        do {
            throw error
        } catch other {
            XCTFail("matched another kind", file: file, line: line)
        } catch kind {
            // The kind matched, whatever the words.
        } catch {
            XCTFail("no kind matched: \(error)", file: file, line: line)
        }
        XCTAssertFalse(kind ~= CocoaError(.fileNoSuchFile), "another type's error", file: file, line: line)
    }

    func testEveryLayersErrorFollowsTheIdiom() {
        assertIdiom(SystemError.config, SystemError.watch)
        assertIdiom(AudioError.damaged, AudioError.unreadable)
        assertIdiom(CatalogueError.noSuchPlaylist, CatalogueError.playlistExists)
        assertIdiom(CatalogueError.malformedURI, CatalogueError.climbsOut)
        assertIdiom(StatsError.noSuchSticker, StatsError.stickerRefused)
        assertIdiom(PlaybackError.outputFailed, PlaybackError.outputFormatRefused)
        assertIdiom(DownloadError.http(404), DownloadError.http(500))
        assertIdiom(DownloadError.diskFull, DownloadError.io)
        assertIdiom(MPDError.noExist, MPDError.arg)
        assertIdiom(ServerError.hostRunning, ServerError.cannotConnect)
        assertIdiom(HostingError.cannotListen, HostingError.refusedAddress)
        assertIdiom(HostDoor.Failure.lost, HostDoor.Failure.refused)
        assertIdiom(CommandError.emptyQueue, CommandError.noHost)
        assertIdiom(EncoderError.badSetting, EncoderError.failed)
        assertIdiom(StreamOutputError.badSetting, StreamOutputError.cannotListen)
        assertIdiom(MPRISError.noSessionBus, MPRISError.cannotRegister)
        assertIdiom(RemotePlaylistError.unreachable, RemotePlaylistError.notAPlaylist)
        assertIdiom(CueSheet.Failure.binary, CueSheet.Failure.tooLarge)
        assertIdiom(RegularFile.Refusal.folder, RegularFile.Refusal.notRegular)
        XCTAssertTrue(DeadlinePassed.passed ~= DeadlinePassed(), "the one kind of a passed deadline")
    }

    /// A kind told in other words keeps what else the error carries: the setting a refusal names, the errno.
    func testOtherWordsKeepTheRestOfTheError() {
        let refused = EncoderError.badSetting("quality", "quality \"11\" is not a number in the range -1 to 10")
        XCTAssertEqual(refused.setting, "quality")
        XCTAssertEqual(refused("in other words").setting, "quality")
        let missing = RegularFile.Refusal.cannotOpen(ENOENT)
        XCTAssertEqual(missing, .cannotOpen)
        XCTAssertEqual(missing("gone").code, ENOENT)
    }

    /// Concrete patterns, as callers write them (a pattern needs the type's own module only).
    func testACatchClauseNamesTheKind() {
        func refuse() throws { throw CommandError.refusedByHost("add", "No such song") }
        do {
            try refuse()
            XCTFail("no error")
        } catch CommandError.noHost {
            XCTFail("matched another kind")
        } catch CommandError.refusedByHost {
            // The kind of a builder that takes other arguments than words.
        } catch {
            XCTFail("\(error)")
        }
        switch CatalogueError.badFilter("Word expected") as Error {
        case CatalogueError.badFeedLine: XCTFail("matched another kind")
        case CatalogueError.badFilter: break
        default: XCTFail("no kind matched")
        }
        XCTAssertTrue(MPDError.noExist ~= MPDError(.noExist, "No such song", command: "playid"),
                      "an ACK built on the wire matches its kind")
    }

    /// The words are the ones users and clients read, unchanged by the idiom.
    func testMessagesAreKept() {
        XCTAssertEqual(CatalogueError.noSuchPlaylist.description, "No such playlist")
        XCTAssertEqual(CatalogueError.io("cannot read /a").description, "cannot read /a")
        XCTAssertEqual(SystemError.fileWrite.description, "cannot write the file")
        XCTAssertEqual(StatsError.badSince.description, "bad --since")
        XCTAssertEqual(DownloadError.http(404).description, "HTTP 404")
        XCTAssertEqual(DownloadError.http(404).httpStatus, 404)
        XCTAssertEqual(DownloadError.timeout("timed out after 30 s").description, "timed out after 30 s")
        XCTAssertEqual(ServerError.hostRunning.description, "another xzmusic already hosts this library")
        XCTAssertEqual(CommandError.noSuchEntry(3, count: 2).description, "no entry 3 in the queue (1-2)")
        XCTAssertEqual(CommandError.noSuchPlaylist(named: "road").description,
                       "no playlist named road ('playlist list' shows them)")
        XCTAssertEqual("\(CommandError.emptyQueue("the queue is empty: nothing to save"))",
                       "the queue is empty: nothing to save")
        XCTAssertEqual(PlaybackError.outputFailed.description, "PlaybackError.outputFailed", "a bare kind names itself")
        XCTAssertEqual(PlaybackError.invalidOutput("bad output spec").description, "bad output spec")
        let audio = AudioError.damaged("broken FLAC header", file: "/music/a.flac")
        XCTAssertEqual(audio.description, "/music/a.flac: broken FLAC header")
        XCTAssertEqual(audio.file, "/music/a.flac")
        XCTAssertEqual(audio, .damaged)
        XCTAssertEqual(AudioError.damaged.description, "AudioError.damaged")
        XCTAssertEqual(MPDError.arg("Number too large: 9").ackLine(index: 0), "ACK [2@0] {} Number too large: 9")
        XCTAssertEqual(MPDError(.noExist, "No such song", command: "playid").ackLine(index: 1),
                       "ACK [50@1] {playid} No such song")
    }
}
