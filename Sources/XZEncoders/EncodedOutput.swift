/// The bytes an encoder made since the last `take()`, in order. Its storage is reserved again at the size
/// of the last take, so steady encoding allocates only the arrays it hands out.
struct EncodedOutput {
    private var bytes: [UInt8] = []

    mutating func append(_ data: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: data.bindMemory(to: UInt8.self))
    }

    mutating func append(_ data: UnsafePointer<UInt8>, count: Int) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
    }

    mutating func append(_ data: [UInt8]) { bytes.append(contentsOf: data) }

    mutating func take() -> [UInt8] {
        var taken: [UInt8] = []
        taken.reserveCapacity(bytes.count)
        swap(&taken, &bytes)
        return taken
    }

    mutating func removeAll() { bytes.removeAll() }
}
