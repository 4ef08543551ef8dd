/// One API request as the transport hands it over: the endpoint's name (without `.view`), every parameter
/// of the query and of a form-POST body in order (a name may repeat: `id=1&id=2`), and what of HTTP the
/// media endpoints read.
package struct SubsonicRequest: Sendable {
    package var endpoint: String
    package var parameters: [(name: String, value: String)]
    /// A HEAD request: the reply's headers, no body.
    package var isHead = false
    /// The `Range` header as sent, for raw streams and downloads.
    package var range: String?
    /// The client's address, for slowing wrong credentials per address.
    package var clientAddress: String

    package init(endpoint: String, parameters: [(name: String, value: String)], isHead: Bool = false,
                 range: String? = nil, clientAddress: String) {
        self.endpoint = endpoint
        self.parameters = parameters
        self.isHead = isHead
        self.range = range
        self.clientAddress = clientAddress
    }

    /// The first value of `name`.
    package func value(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// Every value of `name`, in order.
    package func values(_ name: String) -> [String] {
        parameters.compactMap { $0.name == name ? $0.value : nil }
    }
}
