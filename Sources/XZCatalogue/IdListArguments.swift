import Foundation
import GRDB

extension LibraryDatabase {
    /// `found` in the order of `ids` (the first of any found twice); ids nothing was found for are left out.
    static func inOrder<Item>(_ found: [Item], of ids: [Int64], id: KeyPath<Item, Int64>) -> [Item] {
        let byId = Dictionary(found.map { ($0[keyPath: id], $0) }) { first, _ in first }
        return ids.compactMap { byId[$0] }
    }

    /// Values bound as one JSON array, read back by `json_each`: a list of any length is one argument.
    package static func jsonArray(_ values: [Int64]) -> String {
        "[" + values.map(String.init).joined(separator: ",") + "]"
    }

    package static func jsonArray(_ values: [String]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: values)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
