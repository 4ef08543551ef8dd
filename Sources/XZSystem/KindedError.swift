/// A layer's failure: a kind callers match on, and the one line a user reads.
///
/// A conforming type lists its kinds (`enum Kind`), stores `kind` and `message`, declares `~=` (below), and
/// gives each kind's usual line (`static let io = CatalogueError(kind: .io, message: "cannot read or write a
/// file")`); this protocol gives it the rest, the same for every layer:
/// - build a kind told in other words: `CatalogueError.io("cannot read \(path)")`;
/// - match a kind, whatever its words: `catch CatalogueError.io`, `case CatalogueError.io:`,
///   `error == .io` (equality and hashing go by kind; the message takes no part).
package protocol KindedError: Error, Hashable, CustomStringConvertible, Sendable {
    associatedtype Kind: Hashable, Sendable
    var kind: Kind { get }
    /// The line shown to the user; settable, so that `XError.kind("message")` is that kind in other words.
    var message: String { get set }
    /// Lets `catch XError.kind` and `case XError.kind:` match any error of that kind. Each type declares it
    /// (`{ kind.matches(error) }`): a pattern finds an operator only in a module it imports, and the type's
    /// own module is the one its callers import.
    static func ~= (kind: Self, error: any Error) -> Bool
}

extension KindedError {
    package static func == (a: Self, b: Self) -> Bool { a.kind == b.kind }
    package func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// Whether `error` is of this kind.
    package func matches(_ error: any Error) -> Bool { (error as? Self)?.kind == kind }

    package var description: String { message }

    /// This kind, saying `message`: `CatalogueError.io("cannot read \(path)")`.
    package func callAsFunction(_ message: String) -> Self {
        var told = self
        told.message = message
        return told
    }
}
