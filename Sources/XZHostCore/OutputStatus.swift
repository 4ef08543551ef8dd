/// One line of MPD's `outputs`: an output by its id, name and plugin, and whether it takes audio.
package struct OutputStatus: Sendable, Equatable {
    package let id: Int
    package let name: String
    package let plugin: String
    package let enabled: Bool

    package init(id: Int, name: String, plugin: String, enabled: Bool) {
        self.id = id
        self.name = name
        self.plugin = plugin
        self.enabled = enabled
    }
}
