import NIOCore
import XZSystem

/// The stream's listeners and what a new one needs first, on the output's event loop only.
final class StreamListeners {
    let settings: StreamOutputSettings
    let mimeType: String
    /// ICY metadata is offered when the stream does not carry its titles itself.
    let offersICY: Bool
    /// Read by the audio thread: with nobody listening nothing is encoded (as MPD).
    let count: ListenerCount
    /// The stream is open: listeners are taken (otherwise the answer is 503).
    private(set) var isOpen = false
    /// What a listener joining gets before anything else.
    private var header = ByteBuffer()
    /// The current title's ICY block.
    private(set) var metadata: ByteBuffer?
    private var listeners: [ObjectIdentifier: StreamListener] = [:]
    /// Connections whose request head has yet to come, oldest first.
    private var pendingHeads: [StreamListener] = []
    /// Silence while paused (or stopped with `always_on`).
    var silence: RepeatedTask?

    init(settings: StreamOutputSettings, mimeType: String, offersICY: Bool, count: ListenerCount) {
        self.settings = settings
        self.mimeType = mimeType
        self.offersICY = offersICY
        self.count = count
    }

    /// Why a listener whose head was fine is not taken; nil when it is.
    func refusal() -> (status: String, reason: String)? {
        if !isOpen { return ("503 Service Unavailable", "nothing is playing") }
        if listeners.count >= settings.listenerLimit { return ("503 Service Unavailable", "too many listeners") }
        return nil
    }

    /// Takes a new connection in while its head comes. Past the caps (on heads from its address, then on all)
    /// the oldest pending head goes instead: a slow or silent connection never keeps a new one out, and a
    /// real listener, whose head comes at once, is through before its turn to go comes.
    func admit(_ listener: StreamListener) {
        let sameAddress = pendingHeads.lazy.filter { $0.peer == listener.peer }
        if sameAddress.count >= StreamOutputSettings.pendingHeadsPerAddress, let oldest = sameAddress.first {
            oldest.close()
        } else if pendingHeads.count >= StreamOutputSettings.pendingHeadCap, let oldest = pendingHeads.first {
            oldest.close()
        }
        pendingHeads.append(listener)
    }

    /// The connection's head came, or it went.
    func headEnded(_ listener: StreamListener) {
        if let index = pendingHeads.firstIndex(where: { $0 === listener }) { pendingHeads.remove(at: index) }
    }

    func add(_ listener: StreamListener) {
        listeners[ObjectIdentifier(listener)] = listener
        count.value.store(listeners.count, ordering: .relaxed)
        if header.readableBytes > 0 { listener.push(header) }
        if let metadata { listener.pushMetadata(metadata) }
    }

    func remove(_ listener: StreamListener) {
        guard listeners.removeValue(forKey: ObjectIdentifier(listener)) != nil else { return }
        count.value.store(listeners.count, ordering: .relaxed)
    }

    func open(header: ByteBuffer) {
        isOpen = true
        self.header = header
    }

    /// A new header for listeners joining from now on (an Ogg stream chained for a new song).
    func replaceHeader(_ header: ByteBuffer) {
        self.header = header
    }

    func broadcast(_ page: ByteBuffer) {
        for listener in listeners.values { listener.push(page) }
    }

    func setTitle(_ block: ByteBuffer) {
        metadata = block
        for listener in listeners.values { listener.pushMetadata(block) }
    }

    /// The stream ended (stop without `always_on`, a new format): every listener goes, as MPD's.
    func close() {
        isOpen = false
        header = ByteBuffer()
        silence?.cancel()
        silence = nil
        let gone = listeners.values
        listeners = [:]
        count.value.store(0, ordering: .relaxed)
        for listener in gone { listener.close() }
    }
}

/// The number of listeners, shared with the audio thread.
final class ListenerCount: Sendable {
    let value = Atomic<Int>(0)
}
