import Foundation
import XCTest
@testable import XZAudio
import XZTestSupport

/// Pictures made by the ffmpeg CLI, fitted by the scaler, and checked by ffprobe.
final class CoverImageScalerTests: XCTestCase {
    private func picture(_ folder: TemporaryFolder, _ name: String, width: Int, height: Int, extra: [String] = []) throws -> [UInt8] {
        let path = folder.path(name)
        try TestProcess.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=1",
                                              "-frames:v", "1"] + extra + [path])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// (codec, width, height) as ffprobe reads `bytes`.
    private func probe(_ bytes: [UInt8], in folder: TemporaryFolder) throws -> (String, Int, Int) {
        let path = folder.path("probe-\(UUID().uuidString)")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let out = try TestProcess.runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                         "stream=codec_name,width,height", "-of", "csv=p=0", path]).stdout
        let fields = out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
        guard fields.count == 3, let width = Int(fields[1]), let height = Int(fields[2]) else {
            throw TestFailure("ffprobe said \(out)")
        }
        return (fields[0], width, height)
    }

    func testJPEGIsFittedKeepingItsAspectRatio() throws {
        let folder = try TemporaryFolder("cover")
        let source = try picture(folder, "wide.jpg", width: 640, height: 480)
        let image = try CoverImageScaler.fit(source, within: 100)
        XCTAssertEqual(image.mimeType, "image/jpeg")
        XCTAssertEqual([image.width, image.height], [100, 75])
        let (codec, width, height) = try probe(image.bytes, in: folder)
        XCTAssertEqual(codec, "mjpeg")
        XCTAssertEqual([width, height], [100, 75])
    }

    func testPNGBecomesAJPEGWhenResizedAndStaysItselfWhenItFits() throws {
        let folder = try TemporaryFolder("cover")
        let source = try picture(folder, "tall.png", width: 300, height: 600, extra: ["-pix_fmt", "rgba"])
        let small = try CoverImageScaler.fit(source, within: 64)
        XCTAssertEqual(small.mimeType, "image/jpeg")
        let (codec, width, height) = try probe(small.bytes, in: folder)
        XCTAssertEqual(codec, "mjpeg")
        XCTAssertEqual([width, height], [32, 64])

        for size in [nil, 600, 5000] as [Int?] {
            let kept = try CoverImageScaler.fit(source, within: size)
            XCTAssertEqual(kept.mimeType, "image/png")
            XCTAssertEqual(kept.bytes, source, "a picture that fits is sent as it is")
        }
    }

    func testWebPIsAlwaysSentAsJPEG() throws {
        let folder = try TemporaryFolder("cover")
        let source: [UInt8]
        do {
            source = try picture(folder, "cover.webp", width: 200, height: 200)
        } catch {
            throw XCTSkip("this ffmpeg cannot write WebP: \(error)")
        }
        let image = try CoverImageScaler.fit(source, within: nil)
        XCTAssertEqual(image.mimeType, "image/jpeg")
        let (codec, width, height) = try probe(image.bytes, in: folder)
        XCTAssertEqual(codec, "mjpeg")
        XCTAssertEqual([width, height], [200, 200])
    }

    func testOneByOneAndExtremeRatiosStayAtLeastOnePixel() throws {
        XCTAssertEqual(CoverImageScaler.fitted(width: 4000, height: 10, within: 100).1, 1)
        XCTAssertEqual(CoverImageScaler.fitted(width: 1, height: 1, within: 1).0, 1)
        XCTAssertEqual(CoverImageScaler.fitted(width: 500, height: 400, within: 1000).0, 500)
        let folder = try TemporaryFolder("cover")
        let source = try picture(folder, "strip.jpg", width: 1600, height: 16)
        let image = try CoverImageScaler.fit(source, within: 50)
        let (_, width, height) = try probe(image.bytes, in: folder)
        XCTAssertEqual([width, height], [50, 1])
    }

    func testHostilePicturesAreRefusedWithoutACrash() throws {
        let folder = try TemporaryFolder("cover")
        let jpeg = try picture(folder, "whole.jpg", width: 320, height: 240)
        for cut in [3, 20, jpeg.count / 3, jpeg.count / 2, jpeg.count - 200] {
            XCTAssertThrowsError(try CoverImageScaler.fit(Array(jpeg.prefix(cut)), within: 100), "cut at \(cut)") { error in
                XCTAssertTrue(AudioError.damaged ~= error || AudioError.unsupportedFormat ~= error, "\(error)")
            }
        }
        XCTAssertThrowsError(try CoverImageScaler.fit(Array("not a picture at all".utf8), within: 100)) { error in
            XCTAssertTrue(AudioError.unsupportedFormat ~= error)
        }
        XCTAssertThrowsError(try CoverImageScaler.fit([], within: 100))

        // A PNG header claiming 100,000 × 100,000 pixels: refused before its pixels are allocated.
        var png = try picture(folder, "small.png", width: 8, height: 8)
        let huge: [UInt8] = [0x00, 0x01, 0x86, 0xA0]
        png.replaceSubrange(16..<20, with: huge)
        png.replaceSubrange(20..<24, with: huge)
        XCTAssertThrowsError(try CoverImageScaler.fit(png, within: 100))

        // Bytes flipped through a JPEG's entropy-coded data: an error or a picture, never a crash.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var damaged = jpeg
            for _ in 0..<8 { damaged[Int.random(in: 200..<damaged.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator) }
            if let image = try? CoverImageScaler.fit(damaged, within: 64) {
                XCTAssertLessThanOrEqual(max(image.width, image.height), 320)
            }
        }
    }
}
