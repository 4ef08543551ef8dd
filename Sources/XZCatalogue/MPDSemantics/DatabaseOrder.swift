import Foundation

extension SongNaming {
    /// The key whose byte order (memcmp, `DatabaseOrder.sortByKey`) is MPD's database order for `song`.
    package func databaseOrderKey(of song: Song) -> [UInt8] {
        DatabaseOrder.key(of: song, uri: uri(of: song))
    }
}

/// MPD's database order and the orders `sort` asks for, on songs fetched in any order.
package enum DatabaseOrder {
    /// Puts `songs` in `order`; ties, and every order, start from MPD's database order.
    static func sort(_ songs: inout [Song], _ order: SongSelection.Order, naming: SongNaming) {
        sortByKey(&songs, key: naming.databaseOrderKey)
        switch order {
        case .path:
            return
        case .tag(let tag, let descending):
            let keyed = songs.map { (tag.valuesWithFallback(of: $0).first ?? "", $0) }
            songs = stableSorted(keyed) { a, b in
                let (x, y) = descending ? (b, a) : (a, b)
                if tag.isNumeric { return leadingNumber(x) < leadingNumber(y) }
                return x.utf8.lexicographicallyPrecedes(y.utf8)
            }
        case .lastModified(let descending):
            let keyed = songs.map { ($0.fileMtime ?? 0, $0) }
            songs = stableSorted(keyed) { descending ? $0 > $1 : $0 < $1 }
        }
    }

    private static func stableSorted<Key>(_ keyed: [(Key, Song)], by less: (Key, Key) -> Bool) -> [Song] {
        keyed.enumerated().sorted { a, b in
            if less(a.element.0, b.element.0) { return true }
            if less(b.element.0, a.element.0) { return false }
            return a.offset < b.offset
        }.map(\.element.1)
    }

    /// A byte string whose order (memcmp) is MPD's database order, the order its walk meets songs:
    /// folder by folder (by name), a folder's songs before its subfolders, and within a folder by album
    /// (none first), disc, track, then file name (MPD's song_cmp). Built once per song, so a sort compares
    /// bytes rather than names. Songs named by URL (not offline, `onlineByURL`) are in no folder MPD
    /// walks: they come after every file.
    package static func key(of song: Song, uri: String) -> [UInt8] {
        var key: [UInt8] = []
        appendKey(of: song, uri: uri, to: &key)
        return key
    }

    /// `key(of:uri:)` written at the end of `key`, for callers that keep many keys in one buffer.
    package static func appendKey(of song: Song, uri: String, to key: inout [UInt8]) {
        appendKey(uri: uri, album: song.album, disc: song.disc, track: song.track, to: &key)
    }

    /// The key of a song known by its name and the tags that order it (a file outside the catalogue).
    package static func key(uri: String, album: String?, disc: Int?, track: Int?) -> [UInt8] {
        var key: [UInt8] = []
        appendKey(uri: uri, album: album, disc: disc, track: track, to: &key)
        return key
    }

    private static func appendKey(uri: String, album: String?, disc: Int?, track: Int?, to key: inout [UInt8]) {
        let bytes = Array(uri.utf8)
        key.reserveCapacity(key.count + bytes.count * 2 + 32)
        // A name made from a path never holds "//"; a URL does. Looked for in the bytes: String's
        // `contains` goes through Foundation's string search, which cost more than the rest of the key.
        if bytes.indices.dropLast(2).contains(where: { bytes[$0] == 0x3A && bytes[$0 + 1] == 0x2F && bytes[$0 + 2] == 0x2F }) {
            key.append(3)
        }
        var start = 0
        while let slash = bytes[start...].firstIndex(of: 0x2F) {
            key.append(2)
            appendCollationKey(bytes[start..<slash], to: &key)
            start = slash + 1
        }
        key.append(1)
        if let album {
            key.append(1)
            appendCollationKey(Array(album.utf8)[...], to: &key)
        } else {
            key.append(0)
        }
        for number in [disc ?? 0, track ?? 0] {
            // Sign bit flipped, big-endian: byte order is numeric order.
            withUnsafeBytes(of: (UInt64(bitPattern: Int64(number)) ^ (1 << 63)).bigEndian) { key += $0 }
        }
        appendCollationKey(bytes[start...], to: &key)
    }

    /// A name compares by ICU's root collation first, as MPD's IcuCollate, then by its bytes; each part
    /// ends in a 0 byte, which neither holds before its end, so a prefix sorts first.
    static func appendCollationKey(_ name: ArraySlice<UInt8>, to key: inout [UInt8]) {
        // The collation key carries its own terminating 0.
        if !RootCollation.shared.appendKey(name, to: &key) {
            // Without ICU's data: case-insensitively.
            key += String(decoding: name, as: UTF8.self).lowercased().utf8
            key.append(0)
        }
        key += name
        key.append(0)
    }

    /// Puts `elements` in the byte order (memcmp) of their keys, moving them rather than copying: a song
    /// holds a dozen strings, and a copy retains each.
    package static func sortByKey<Element, Key: Sequence<UInt8>>(_ elements: inout [Element], key: (Element) -> Key) {
        let keys = elements.map(key)
        let order = keys.indices.sorted { left, right in
            // Arrays and their slices, the keys callers have, are contiguous.
            let compared = keys[left].withContiguousStorageIfAvailable { a in
                keys[right].withContiguousStorageIfAvailable { b in
                    let length = min(a.count, b.count)
                    let common = length == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, length)
                    return common != 0 ? common < 0 : a.count < b.count
                }
            }
            return (compared ?? nil) ?? keys[left].lexicographicallyPrecedes(keys[right])
        }
        // Cycle by cycle, position i takes the element at order[i]. Swapped through the buffer, which
        // moves them; Array's own swapAt copies.
        var placed = [Bool](repeating: false, count: order.count)
        elements.withUnsafeMutableBufferPointer { buffer in
            for start in order.indices where !placed[start] {
                var current = start
                placed[current] = true
                while order[current] != start {
                    let next = order[current]
                    buffer.swapAt(current, next)
                    current = next
                    placed[current] = true
                }
            }
        }
    }

    /// strtol's reading: leading digits, else 0.
    static func leadingNumber(_ text: String) -> Int {
        Int(text.prefix { $0.isASCII && $0.isNumber }.prefix(18)) ?? 0
    }
}
