import Hummingbird
import XZSubsonicAPI

/// The API on HTTP.
package final class SubsonicServer: Sendable {
    package init(library: SubsonicLibrary) {}
}
