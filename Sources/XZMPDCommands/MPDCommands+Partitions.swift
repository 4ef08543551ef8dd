import XZProtocol

extension MPDCommands {
    /// MPD's partitions, of which this host has the one MPD starts with: `default`.
    static let partitionCommands: [MPDCommand] = [
        MPDCommand("listpartitions", 0...0, .readOnly) { call in call.response.add("partition", defaultPartition) },
        MPDCommand("partition", 1...1, .readOnly) { call throws(MPDError) in
            // Switching to the partition the client is in already, as MPD; any other is none.
            guard call.arguments[0] == defaultPartition else { throw MPDError.noExist("partition does not exist") }
        },
    ]

    static let defaultPartition = "default"
}
