import Dispatch
import NIOCore
import NIOPosix
import XZAudio
import XZSystem
import XZEncoders
import XZPlaybackEngine
import XZPlaybackValues

/// MPD's `httpd` output: what plays, encoded, to every listener of `http://ADDRESS:PORT/`.
///
/// The audio thread encodes in `write` (nothing when nobody listens, as MPD) and hands the bytes to the
/// output's own event loop, which gives each listener a copy through a queue of its own: a slow listener
/// loses its queue and never slows another or the player. Paused, the loop sends encoded silence at real-time
/// pace so listeners stay connected (MPD's pause); a stop closes the listeners, or with `always_on` goes on
/// with silence.
package final class HTTPStreamOutput: AudioOutput {
    package let settings: StreamOutputSettings
    /// The port listened on (the one asked for, or the one given for port 0).
    package let port: Int
    package let mimeType: String
    package var needsPacing: Bool { true }
    package var bufferedFrames: Int { 0 }

    /// The encoder and where its stream is, shared by the audio thread and the silence timer.
    private struct Coder {
        let encoder: AudioEncoder
        /// What the player writes (nil while closed) and what the encoder takes.
        var format: AudioFormat?
        var layout: AudioFormat?
        var widened: [UInt8] = []
        /// Bytes fed since the encoder last gave any (MPD flushes past 64 KiB).
        var unflushed = 0
        /// Silence is due: paused, or stopped with `always_on`.
        var silent = false
        var silenceSinceNs: UInt64 = 0
        var silenceFrames = 0
        /// The header listeners joining now get: the encoder's, as of the last bytes handed to the loop.
        var header: [UInt8] = []
    }

    /// MPD's `unflushed_input` limit.
    private static let flushAfterBytes = 65_536
    /// The silence timer's period.
    private static let silencePeriodMs: Int64 = 100

    private let group: MultiThreadedEventLoopGroup
    private let loop: EventLoop
    private let server: Channel
    private let listeners: NIOLoopBound<StreamListeners>
    private let listenerCount: ListenerCount
    private let coder: Mutex<Coder>
    private let carriesTags: Bool
    private let stopped = Atomic<Bool>(false)

    /// Makes the encoder and starts listening.
    package init(settings: StreamOutputSettings) throws(StreamOutputError) {
        let label = "audio_output \"\(settings.name)\""
        let encoder: AudioEncoder
        do {
            encoder = try makeEncoder(kind: settings.encoder, settings: settings.encoderSettings)
        } catch {
            throw .badSetting("\(label): \(error)")
        }
        self.settings = settings
        mimeType = encoder.mimeType
        carriesTags = encoder.carriesTags
        coder = Mutex(Coder(encoder: encoder))
        let count = ListenerCount()
        listenerCount = count
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        loop = group.next()
        let bound: NIOLoopBound<StreamListeners>
        do {
            bound = try loop.submit { [loop, mimeType, carriesTags] in
                NIOLoopBound(StreamListeners(settings: settings, mimeType: mimeType, offersICY: !carriesTags, count: count), eventLoop: loop)
            }.wait()
            server = try ServerBootstrap(group: group)
                // Room for a burst of connections while the loop takes them in: past it the kernel drops a
                // listener's connect, which then waits a second or more to try again.
                .serverChannelOption(ChannelOptions.backlog, value: 1024)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(ChannelOptions.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 64 * 1024))
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try StreamListener.install(on: channel, listeners: bound.value)
                    }
                }
                .bind(host: settings.address, port: settings.port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw .cannotListen("\(label): cannot listen on \(settings.address) port \(settings.port): \(error)")
        }
        listeners = bound
        port = server.localAddress?.port ?? settings.port
    }

    deinit {
        shutdown()
        group.shutdownGracefully(queue: .global()) { _ in }
    }

    /// Stops listening and closes every listener (the output disabled); for good.
    package func shutdown() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        let listeners = self.listeners
        loop.execute { listeners.value.close() }
        // Off the loop the port is free when this returns (a re-enabled output binds it again).
        if loop.inEventLoop { server.close(promise: nil) } else { try? server.close().wait() }
    }

    private func onLoop(_ body: @escaping @Sendable (StreamListeners) -> Void) {
        guard !stopped.load(ordering: .relaxed) else { return }
        let listeners = self.listeners
        loop.execute { body(listeners.value) }
    }

    package func outputFormat(for source: AudioFormat) -> AudioFormat { source.with(sample: .s16) }

    package func open(format: AudioFormat) throws {
        let header = try coder.withLock { coder throws(PlaybackError) -> [UInt8]? in
            coder.silent = false
            // The same stream goes on (a stop with `always_on`, the next song of the same format).
            if coder.format == format { return nil }
            if coder.format != nil { coder.encoder.close() }
            coder.format = nil
            let layout: AudioFormat
            do {
                layout = try coder.encoder.open(format: format)
            } catch {
                throw PlaybackError.outputFailed("stream \"\(settings.name)\": \(error)")
            }
            guard layout.sampleRate == format.sampleRate, layout.channels == format.channels else {
                coder.encoder.close()
                throw PlaybackError.outputFormatRefused("stream \"\(settings.name)\": the \(settings.encoder.rawValue) encoder cannot take \(format.mpdFormat)")
            }
            coder.format = format
            coder.layout = layout
            coder.unflushed = 0
            // Its first bytes are the header every listener gets first.
            _ = coder.encoder.takeOutput()
            coder.header = coder.encoder.streamHeader
            let page = ByteBuffer(bytes: coder.header)
            // Listeners of the stream before (another format) go, as MPD closes and reopens the output.
            onLoop {
                $0.close()
                $0.open(header: page)
            }
            return coder.header
        }
        if header == nil { onLoop { $0.silence?.cancel() } }
    }

    package func write(_ pcm: UnsafeRawBufferPointer) throws {
        guard listenerCount.value.load(ordering: .relaxed) > 0 else { return }
        // A copy the lock may take in (a few KiB per period).
        let samples = [UInt8](pcm)
        try coder.withLock { coder throws(PlaybackError) in
            publish(try Self.encode(samples, &coder), &coder)
        }
    }

    /// Hands encoded bytes to the listeners, with the lock held: the audio thread and the silence timer both
    /// encode, and their bytes must reach the loop in the order they were made. When the encoder's header
    /// changed with these bytes (an Ogg stream chained, at `sendTag` or, for Opus, at the next audio),
    /// listeners joining after them get the new one, so they never start inside a stream they have no header of.
    private func publish(_ bytes: [UInt8], _ coder: inout Coder) {
        let header = coder.encoder.streamHeader
        let newHeader = header == coder.header ? nil : ByteBuffer(bytes: header)
        if newHeader != nil { coder.header = header }
        guard !bytes.isEmpty || newHeader != nil else { return }
        let page = ByteBuffer(bytes: bytes)
        onLoop { listeners in
            if page.readableBytes > 0 { listeners.broadcast(page) }
            if let newHeader { listeners.replaceHeader(newHeader) }
        }
    }

    /// Feeds the encoder s16 PCM of the open format; returns what it gave.
    private static func encode(_ samples: [UInt8], _ coder: inout Coder) throws(PlaybackError) -> [UInt8] {
        guard let layout = coder.layout else { throw PlaybackError.outputFailed("the stream is not open") }
        do {
            if layout.sample == .s16 {
                try samples.withUnsafeBytes { [encoder = coder.encoder] in try encoder.encode($0) }
            } else {
                let pcm = samples
                widenS16(pcm, to: layout.sample, into: &coder.widened)
                try coder.widened.withUnsafeBytes { [encoder = coder.encoder] in try encoder.encode($0) }
            }
            coder.unflushed += samples.count
            var output = coder.encoder.takeOutput()
            if output.isEmpty, coder.unflushed >= flushAfterBytes {
                try coder.encoder.flush()
                output = coder.encoder.takeOutput()
            }
            if !output.isEmpty { coder.unflushed = 0 }
            return output
        } catch {
            throw PlaybackError.outputFailed("stream encoder: \(error)")
        }
    }

    package func close() {
        if settings.alwaysOn, coder.withLock({ $0.format != nil }) {
            startSilence()
            return
        }
        disable()
    }

    package func disable() {
        coder.withLock { coder in
            coder.silent = false
            if coder.format != nil { coder.encoder.close() }
            coder.format = nil
            coder.layout = nil
        }
        onLoop { $0.close() }
    }

    package func pauseChanged(_ paused: Bool) {
        if paused {
            if coder.withLock({ $0.format != nil }) { startSilence() }
        } else {
            coder.withLock { $0.silent = false }
            onLoop { $0.silence?.cancel() }
        }
    }

    package func songStarted(title: String?, artist: String?, album: String?) {
        guard settings.sendsTags else { return }
        let tag = StreamTag(title: title, artist: artist, album: album)
        guard carriesTags else {
            let block = ByteBuffer(bytes: ICYMetadata.block(title: tag.streamTitle))
            onLoop { $0.setTitle(block) }
            return
        }
        // The stream chains a new part with the tag (Opus at its next audio); `publish` switches the header.
        coder.withLock { coder in
            guard coder.format != nil else { return }
            // MPD goes on without the tag when the encoder refuses it.
            try? coder.encoder.sendTag(tag)
            try? coder.encoder.flush()
            publish(coder.encoder.takeOutput(), &coder)
        }
    }

    private func startSilence() {
        coder.withLock { coder in
            coder.silent = true
            coder.silenceSinceNs = DispatchTime.now().uptimeNanoseconds
            coder.silenceFrames = 0
        }
        onLoop { [weak self] listeners in
            listeners.silence?.cancel()
            listeners.silence = self?.loop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(Self.silencePeriodMs)) { [weak self] _ in
                self?.sendSilence()
            }
        }
    }

    /// On the loop: the silence due since the last call, encoded and sent.
    private func sendSilence() {
        let listening = listenerCount.value.load(ordering: .relaxed) > 0
        coder.withLock { coder in
            guard coder.silent, let format = coder.format else { return }
            let rate = format.sampleRate
            let elapsedNs = DispatchTime.now().uptimeNanoseconds &- coder.silenceSinceNs
            // The clock restarts after a second, so no product grows with the pause; a stalled loop loses the gap.
            var due = Int(min(elapsedNs, 2_000_000_000) / 1000) * rate / 1_000_000 - coder.silenceFrames
            if elapsedNs >= 1_000_000_000 {
                coder.silenceSinceNs &+= 1_000_000_000
                coder.silenceFrames -= rate
                if elapsedNs >= 2_000_000_000 {
                    coder.silenceSinceNs = DispatchTime.now().uptimeNanoseconds
                    coder.silenceFrames = 0
                    due = rate / 10
                }
            }
            guard due > 0 else { return }
            coder.silenceFrames += due
            guard listening else { return }
            let zeros = [UInt8](repeating: 0, count: due * format.bytesPerFrame)
            // Queued behind any bytes the audio thread handed over before (not sent ahead of them).
            publish((try? Self.encode(zeros, &coder)) ?? [], &coder)
        }
    }
}

extension OutputType {
    /// MPD's `httpd` output: what plays, encoded, to HTTP listeners; beyond loopback they need the host's password.
    package static let httpd = OutputType("httpd", keys: [
        Key("port", .wholeNumber(0...65_535, unit: nil)), Key("bind_to_address", .text(allowsEmpty: false)),
        Key("encoder", .choice(EncoderKind.allCases.map(\.rawValue))), Key("max_clients", .wholeNumber(0...Int(UInt32.max), unit: nil)),
        Key("always_on", .yesNo), Key("tags", .yesNo),
    ] + EncoderKind.allSettingNames.map { Key($0, .text(allowsEmpty: false)) }) { block in
        try HTTPStreamOutput(settings: StreamOutputSettings(block: block))
    }
}
