import Foundation
import XZAccounts
import XZCatalogue

extension SubsonicCall {
    /// The user the call is made by; every endpoint but `.anyone` ones has one.
    package func signedInUser() throws -> LibraryUser {
        guard let user else { throw SubsonicError.notAuthorized }
        return user
    }

    /// The songs of `ids` in order (an id given twice is there twice); an id that is no song of the
    /// library is error 70, naming the parameter.
    package func librarySongs(_ ids: [SubsonicID], parameter: String) throws -> [Song] {
        let rows = try ids.map { id -> Int64 in
            guard case .song(let row) = id else { throw SubsonicError.notFound("'\(parameter)' names no song") }
            return row
        }
        let found = try library.database.songs(ids: Array(Set(rows)))
        let byId = Dictionary(found.map { ($0.id, $0) }) { first, _ in first }
        return try rows.map { row in
            guard let song = byId[row] else { throw SubsonicError.notFound("no song has the id given as '\(parameter)'") }
            return song
        }
    }
}

extension SubsonicError {
    /// A store's refusal in the spec's terms: unknown items are 70, values out of their domain 0.
    static func from(_ error: UserDataError) -> SubsonicError {
        switch error.kind {
        case .notFound: .notFound(error.message)
        case .refused: .generic(error.message)
        }
    }
}

/// Runs a store call, its `UserDataError` as the spec's error.
func userData<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as UserDataError {
        throw SubsonicError.from(error)
    }
}
