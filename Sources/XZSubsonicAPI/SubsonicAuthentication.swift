import XZAccounts
import XZSystem

/// Who a request comes from, by the spec's rules (api-reference.md, extensions/apiKeyAuth.md):
/// `apiKey` alone; or `u` with `p` (clear, or `enc:` and hex) or with `t` and `s` (t = md5(password + s)).
/// `v` and `c` come with every authenticated request. The codes: 10 a parameter missing, 40 wrong name
/// or password, 43 mechanisms mixed (`apiKey` with `u`, `p`, `t` or `s`; `p` with `t`/`s`), 44 an unknown
/// API key. 41 and 42 never arise: every mechanism the spec names is supported.
package enum SubsonicAuthentication {
    /// The user the request's credentials name, or the spec's error. Runs on a pool thread: the store
    /// reads SQLite and unseals the password for a token.
    package static func user(of request: SubsonicRequest, accounts: AccountStore) throws -> LibraryUser {
        _ = try request.required("c")
        try checkVersion(try request.required("v"))
        let name = try request.text("u")
        let password = try request.text("p")
        let token = try request.text("t")
        let salt = try request.text("s")
        if let apiKey = try request.text("apiKey") {
            guard name == nil, password == nil, token == nil, salt == nil else {
                throw SubsonicError.conflictingAuth("an API key comes without 'u', 'p', 't' or 's'")
            }
            do {
                return try accounts.authenticate(apiKey: apiKey)
            } catch let error as AccountError where error.kind == .unknownAPIKey {
                throw SubsonicError.invalidAPIKey
            }
        }
        guard let name else {
            throw SubsonicError.missingParameter("required parameter 'u' is missing (or 'apiKey')")
        }
        do {
            if let password {
                guard token == nil, salt == nil else {
                    throw SubsonicError.conflictingAuth("a password comes without 't' or 's'")
                }
                guard let clear = self.password(password) else { throw SubsonicError.wrongCredentials }
                return try accounts.authenticate(name: name, password: clear)
            }
            guard let token else { throw SubsonicError.missingParameter("required parameter 'p' or 't' is missing") }
            guard let salt else { throw SubsonicError.missingParameter("required parameter 's' is missing") }
            return try accounts.authenticate(name: name, token: token, salt: salt)
        } catch let error as AccountError where error.kind == .wrongCredentials {
            throw SubsonicError.wrongCredentials
        }
    }

    /// A password parameter as the spec sends it: clear text, or `enc:` and the UTF-8 bytes in hex (either
    /// case). Nil when the hex is malformed or its bytes are no UTF-8.
    package static func password(_ parameter: String) -> String? {
        guard parameter.hasPrefix("enc:") else { return parameter }
        guard let bytes = ByteEncodings.bytes(hex: parameter.utf8.dropFirst(4)) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// This server speaks API version 1.16.1: a client needing a later major version is told so (30), one
    /// of an earlier major version too (20). A version that does not parse is let through, as real
    /// clients' versions vary ("1.16.1", "1.13.0", "1.2").
    private static func checkVersion(_ version: String) throws {
        guard let major = version.split(separator: ".", omittingEmptySubsequences: false).first.flatMap({ Int($0) }) else { return }
        if major > 1 { throw SubsonicError.serverTooOld }
        if major < 1 { throw SubsonicError.clientTooOld }
    }
}
