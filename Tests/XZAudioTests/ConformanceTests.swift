import Foundation
import XCTest
@testable import XZAudio
import XZTestSupport
import XZCorpusTestSupport

/// ISO/IEC 11172-4 / 13818-4 vectors with reference PCM (the public corpus lieff-minimp3, optional).
/// Where mpg123-1.31.2_vs_reference.tsv shows libmpg123 within 1 LSB / 96 dB of the reference,
/// MP3Decoder must be too; every other vector must merely not crash.
final class ConformanceTests: XCTestCase {
    struct Row {
        let vector: String
        let mpg123Samples: Int?
        let prefixMaxDiff: Int?
        let prefixPSNR: Double?
        let bestOffset: Int?
        let bestPSNR: Double?
    }

    private var vectors: URL!
    private var rows: [Row] = []

    override func setUpWithError() throws {
        let root = try Corpora.require("lieff-minimp3", files: ["vectors", "mpg123-1.31.2_vs_reference.tsv"])
        vectors = root.appendingPathComponent("vectors")
        let tsv = try String(contentsOf: root.appendingPathComponent("mpg123-1.31.2_vs_reference.tsv"), encoding: .utf8)
        for line in tsv.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("vector\t") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 9 else { continue }
            let best = f.count > 9 ? f[9].split(separator: "/") : []
            rows.append(Row(vector: f[0], mpg123Samples: Int(f[3]), prefixMaxDiff: Int(f[6]),
                            prefixPSNR: Double(f[7]), bestOffset: Int(f[8]),
                            bestPSNR: best.count == 2 ? Double(best[1]) : nil))
        }
        XCTAssertGreaterThan(rows.count, 80)
    }

    private static func passes(maxDiff: Int?, psnr: Double?) -> Bool {
        (maxDiff ?? Int.max) <= 1 || (psnr ?? 0) > 96
    }

    func testVectorsWhereLibmpg123MatchesTheReference() throws {
        var checked: [String] = []
        for row in rows {
            guard let produced = row.mpg123Samples, produced > 0 else { continue }
            // Aligned at 0, or at the offset the table found (l3-sin1k0db: mpg123 starts 4608 samples later).
            let offset: Int
            if Self.passes(maxDiff: row.prefixMaxDiff, psnr: row.prefixPSNR) {
                offset = 0
            } else if let best = row.bestOffset, best > 0, (row.bestPSNR ?? 0) > 96 {
                offset = best
            } else {
                continue
            }
            let pcmURL = vectors.appendingPathComponent(row.vector.replacingOccurrences(of: ".bit", with: ".pcm"))
            let reference = PCM.int16s(try Data(contentsOf: pcmURL))
            guard !reference.isEmpty else { continue }
            let (decoder, pcm) = try PCM.decodeFile(vectors.appendingPathComponent(row.vector).path)
            let out = PCM.int16s(pcm)
            let result = PCM.compare(out, reference, offset: offset)
            // Compare at least as much as libmpg123 itself produced against the reference.
            XCTAssertGreaterThanOrEqual(result.count, min(reference.count, produced - offset), row.vector)
            XCTAssertTrue(result.maxDiff <= 1 || result.psnr > 96,
                          "\(row.vector): max diff \(result.maxDiff), PSNR \(result.psnr) dB over \(result.count) samples")
            if row.vector.hasPrefix("l1-") || row.vector.hasPrefix("l2-fl") || row.vector.hasPrefix("l3-") || row.vector.hasPrefix("M2L3") {
                if !row.vector.contains("nonstandard") {
                    XCTAssertNil(decoder.damageReport, "\(row.vector): clean ISO stream reported as damaged")
                }
            }
            checked.append(row.vector)
        }
        // 31 ISO vectors plus the nonstandard ones the table shows in agreement.
        XCTAssertGreaterThanOrEqual(checked.count, 31, "\(checked)")
    }

    func testEveryVectorDecodesOrThrowsAudioError() throws {
        var files = try FileManager.default.contentsOfDirectory(atPath: vectors.path)
            .filter { $0.hasSuffix(".bit") }.map { vectors.appendingPathComponent($0).path }
        files.append(vectors.appendingPathComponent("fuzz/l3-compl-cut.mp3").path)
        XCTAssertGreaterThan(files.count, 80)
        for path in files.sorted() {
            do {
                let (decoder, pcm) = try PCM.decodeFile(path)
                XCTAssertEqual(pcm.count % decoder.format.bytesPerFrame, 0, path)
                // Decoding again after a seek to the start gives the same PCM.
                try decoder.seek(toSample: 0)
                XCTAssertEqual(try PCM.decodeAll(decoder), pcm, path)
            } catch let error as AudioError {
                XCTAssertTrue(error.description.hasPrefix(path + ": "), error.description)
                XCTAssertFalse(error.message.isEmpty, path)
            }
            do {
                let info = try AudioDecoders.probe(path: path)
                XCTAssertGreaterThan(info.format.sampleRate, 0, path)
            } catch {
                XCTAssertTrue(error is AudioError, "\(path): \(error)")
            }
        }
    }

    /// The synthetic performance tones are clean streams: byte-identical to mpg123, no damage.
    func testPerformanceTonesMatchMpg123() throws {
        let folder = vectors.appendingPathComponent("performance")
        for name in ["MEANDR90.mp3", "MIPSTest.mp3", "noise_meandr.mp3"] {
            let path = folder.appendingPathComponent(name).path
            let (decoder, pcm) = try PCM.decodeFile(path)
            PCM.assertSame(pcm, try Tool.mpg123PCM(path), name)
            XCTAssertEqual(decoder.lengthInSamples, pcm.count / decoder.format.bytesPerFrame, name)
            XCTAssertNil(decoder.damageReport, name)
        }
    }
}
