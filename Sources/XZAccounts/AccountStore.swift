import Foundation
import XZCatalogue

/// The library's users in its database, their passwords sealed under the library's key file.
package struct AccountStore: Sendable {
    package let database: LibraryDatabase

    package init(database: LibraryDatabase, keyFile: URL) {
        self.database = database
    }
}
