import Foundation

/// Where typed parameters are read from: a request, or an endpoint's call (which reads its request).
///
/// Every accessor parses into the parameter's real domain and never traps: a missing required parameter is
/// error 10 naming it, a value that does not parse or lies outside its domain is error 0 naming it, a
/// malformed id is error 70. No value longer than `maxValueBytes` or holding NUL is ever handed on. Error
/// messages name the parameter, never repeat its value (a client's text is not echoed back).
package protocol SubsonicParameterReading {
    /// The first value of `name`, unchecked.
    func value(_ name: String) -> String?
    /// Every value of `name`, in order, unchecked.
    func values(_ name: String) -> [String]
}

extension SubsonicRequest: SubsonicParameterReading {}

extension SubsonicCall: SubsonicParameterReading {
    package func value(_ name: String) -> String? { request.value(name) }
    package func values(_ name: String) -> [String] { request.values(name) }
}

/// The limits every parameter value is held to.
package enum SubsonicParameterLimits {
    /// The longest value accepted, in UTF-8 bytes; as long as the longest id.
    package static let maxValueBytes = SubsonicID.maxLength
    /// The most values one repeated parameter (`id=…&id=…`) may carry.
    package static let maxRepeats = 10_000
    /// The latest date accepted: the end of year 9999, in milliseconds since the epoch.
    package static let maxDateMilliseconds: Int64 = 253_402_300_799_999
}

extension SubsonicParameterReading {
    // MARK: Text

    /// The value of `name`, or error 10 naming it when it is missing.
    package func required(_ name: String) throws -> String {
        guard let value = try text(name) else {
            throw SubsonicError.missingParameter("required parameter '\(name)' is missing")
        }
        return value
    }

    /// The value of `name`, or nil when it is missing.
    package func text(_ name: String) throws -> String? {
        guard let value = value(name) else { return nil }
        return try Self.checked(value, name)
    }

    /// Every value of `name`, in order (none when it is missing).
    package func texts(_ name: String) throws -> [String] {
        let all = values(name)
        guard all.count <= SubsonicParameterLimits.maxRepeats else {
            throw SubsonicError.generic("parameter '\(name)' is repeated more than \(SubsonicParameterLimits.maxRepeats) times")
        }
        return try all.map { try Self.checked($0, name) }
    }

    // MARK: Numbers

    /// The integer `name`, `default` when it is missing. A value that is no integer, or one outside
    /// `domain` (a number past 64 bits included), is refused with error 0 saying the domain.
    package func int(_ name: String, default defaultValue: Int, in domain: ClosedRange<Int>) throws -> Int {
        try optionalInt(name, in: domain) ?? defaultValue
    }

    /// The integer `name` within `domain`, nil when it is missing; refused as `int` refuses.
    package func optionalInt(_ name: String, in domain: ClosedRange<Int>) throws -> Int? {
        guard let number = try optionalInt64(name, in: Int64(domain.lowerBound)...Int64(domain.upperBound)) else { return nil }
        return Int(number)
    }

    /// The integer `name` held within `domain`: a count or an offset a client may ask too much of
    /// (`size=100000` answers the most the endpoint gives). A number past 64 bits clamps the same way;
    /// text that is no integer is refused with error 0.
    package func clampedInt(_ name: String, default defaultValue: Int, in domain: ClosedRange<Int>) throws -> Int {
        guard let text = try text(name) else { return defaultValue }
        switch Self.parseInteger(text) {
        case .value(let number): return Int(max(Int64(domain.lowerBound), min(Int64(domain.upperBound), number)))
        case .tooLarge: return domain.upperBound
        case .tooSmall: return domain.lowerBound
        case .invalid: throw SubsonicError.generic("parameter '\(name)' is not an integer")
        }
    }

    /// The 64-bit integer `name`, `default` when it is missing; refused as `int` refuses.
    package func int64(_ name: String, default defaultValue: Int64, in domain: ClosedRange<Int64>) throws -> Int64 {
        try optionalInt64(name, in: domain) ?? defaultValue
    }

    /// The 64-bit integer `name` within `domain`, nil when it is missing.
    package func optionalInt64(_ name: String, in domain: ClosedRange<Int64>) throws -> Int64? {
        guard let text = try text(name) else { return nil }
        switch Self.parseInteger(text) {
        case .value(let number) where domain.contains(number): return number
        case .value, .tooLarge, .tooSmall:
            throw SubsonicError.generic("parameter '\(name)' must be an integer from \(domain.lowerBound) to \(domain.upperBound)")
        case .invalid: throw SubsonicError.generic("parameter '\(name)' is not an integer")
        }
    }

    /// The decimal number `name` (a gain, a position in seconds), `default` when missing; NaN, infinities
    /// and values outside `domain` are refused with error 0.
    package func double(_ name: String, default defaultValue: Double, in domain: ClosedRange<Double>) throws -> Double {
        guard let text = try text(name) else { return defaultValue }
        guard text.utf8.count <= 64, let number = Double(text), number.isFinite else {
            throw SubsonicError.generic("parameter '\(name)' is not a number")
        }
        guard domain.contains(number) else {
            throw SubsonicError.generic("parameter '\(name)' must be a number from \(domain.lowerBound) to \(domain.upperBound)")
        }
        return number
    }

    // MARK: Booleans and dates

    /// The boolean `name` ("true"/"false", any case, or "1"/"0"), `default` when it is missing.
    package func bool(_ name: String, default defaultValue: Bool) throws -> Bool {
        try optionalBool(name) ?? defaultValue
    }

    /// The boolean `name`, nil when it is missing.
    package func optionalBool(_ name: String) throws -> Bool? {
        guard let text = try text(name) else { return nil }
        switch text.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: throw SubsonicError.generic("parameter '\(name)' must be true or false")
        }
    }

    /// The date `name`, given in milliseconds since the epoch (as `scrobble`'s `time` and `ifModifiedSince`
    /// are), nil when it is missing. Negative values and dates past year 9999 are refused with error 0.
    package func date(_ name: String) throws -> Date? {
        guard let milliseconds = try optionalInt64(name, in: 0...SubsonicParameterLimits.maxDateMilliseconds) else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    // MARK: Ids

    /// The id `name`: error 10 when it is missing, error 70 ("not found") when it is no id of ours.
    package func id(_ name: String) throws -> SubsonicID {
        guard let id = try optionalID(name) else {
            throw SubsonicError.missingParameter("required parameter '\(name)' is missing")
        }
        return id
    }

    /// The id `name`, nil when it is missing; error 70 when it is no id of ours.
    package func optionalID(_ name: String) throws -> SubsonicID? {
        guard let text = try text(name) else { return nil }
        guard let id = SubsonicID(text) else { throw SubsonicError.notFound("no item has the id given as '\(name)'") }
        return id
    }

    /// Every id given as `name` (a repeated parameter), in order; none when it is missing. Any malformed
    /// one is error 70.
    package func ids(_ name: String) throws -> [SubsonicID] {
        try texts(name).map { text in
            guard let id = SubsonicID(text) else { throw SubsonicError.notFound("no item has an id given as '\(name)'") }
            return id
        }
    }

    // MARK: Checks

    private static func checked(_ value: String, _ name: String) throws -> String {
        guard value.utf8.count <= SubsonicParameterLimits.maxValueBytes else {
            throw SubsonicError.generic("parameter '\(name)' is longer than \(SubsonicParameterLimits.maxValueBytes) bytes")
        }
        guard !value.utf8.contains(0) else {
            throw SubsonicError.generic("parameter '\(name)' holds a NUL character")
        }
        return value
    }

    private static func parseInteger(_ text: String) -> ParsedInteger {
        var digits = Substring(text)
        var negative = false
        if let sign = digits.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return .invalid }
        guard let magnitude = UInt64(digits) else { return negative ? .tooSmall : .tooLarge }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return .tooSmall }
            return .value(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
        }
        guard magnitude <= UInt64(Int64.max) else { return .tooLarge }
        return .value(Int64(magnitude))
    }
}

private enum ParsedInteger {
    case value(Int64)
    case tooLarge
    case tooSmall
    case invalid
}
