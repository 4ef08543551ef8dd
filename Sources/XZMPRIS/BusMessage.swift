import CSystemdBus
import Foundation

/// Writing and reading one sd-bus message's values without its variadic calls, which Swift cannot make.
/// Each call returns sd-bus's result: negative is an errno, and the first failure is kept.
struct BusMessage {
    let message: OpaquePointer
    private(set) var result: Int32 = 0

    init(_ message: OpaquePointer) { self.message = message }

    private mutating func keep(_ r: Int32) {
        if result >= 0, r < 0 { result = r }
    }

    mutating func appendString(_ value: String) {
        keep(value.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) })
    }

    mutating func appendObjectPath(_ value: String) {
        keep(value.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "o")), $0) })
    }

    mutating func appendBool(_ value: Bool) {
        var flag: Int32 = value ? 1 : 0
        keep(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &flag))
    }

    mutating func appendDouble(_ value: Double) {
        var number = value
        keep(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "d")), &number))
    }

    mutating func appendInt32(_ value: Int32) {
        var number = value
        keep(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "i")), &number))
    }

    mutating func appendInt64(_ value: Int64) {
        var number = value
        keep(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "x")), &number))
    }

    mutating func appendStrings(_ values: [String]) {
        keep(sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "s"))
        for value in values { appendString(value) }
        keep(sd_bus_message_close_container(message))
    }

    mutating func appendDictionary(_ entries: [(String, MetadataValue)]) {
        keep(sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{sv}"))
        for (key, value) in entries {
            keep(sd_bus_message_open_container(message, CChar(UInt8(ascii: "e")), "sv"))
            appendString(key)
            keep(sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), value.signature))
            switch value {
            case .string(let text): appendString(text)
            case .strings(let texts): appendStrings(texts)
            case .int32(let number): appendInt32(number)
            case .int64(let number): appendInt64(number)
            case .objectPath(let path): appendObjectPath(path)
            }
            keep(sd_bus_message_close_container(message))
            keep(sd_bus_message_close_container(message))
        }
        keep(sd_bus_message_close_container(message))
    }

    /// The next argument, of the type the vtable's signature promised (sd-bus checked it before the call).
    mutating func readInt64() -> Int64? {
        var value: Int64 = 0
        let r = sd_bus_message_read_basic(message, CChar(UInt8(ascii: "x")), &value)
        keep(r)
        return r > 0 ? value : nil
    }

    mutating func readDouble() -> Double? {
        var value: Double = 0
        let r = sd_bus_message_read_basic(message, CChar(UInt8(ascii: "d")), &value)
        keep(r)
        return r > 0 ? value : nil
    }

    mutating func readBool() -> Bool? {
        var value: Int32 = 0
        let r = sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &value)
        keep(r)
        return r > 0 ? value != 0 : nil
    }

    /// A string or object path (`type` "s" or "o").
    mutating func readText(_ type: Character) -> String? {
        var value: UnsafePointer<CChar>?
        let r = sd_bus_message_read_basic(message, CChar(type.asciiValue ?? 0), &value)
        keep(r)
        return r > 0 ? value.map { String(cString: $0) } : nil
    }
}

/// A value of MPRIS's `Metadata` dictionary.
enum MetadataValue: Equatable {
    case string(String)
    case strings([String])
    case int32(Int32)
    case int64(Int64)
    case objectPath(String)

    var signature: String {
        switch self {
        case .string: return "s"
        case .strings: return "as"
        case .int32: return "i"
        case .int64: return "x"
        case .objectPath: return "o"
        }
    }
}
