import Foundation

package struct FuzzSetupError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Writes to standard error unbuffered, as a finding's last words must arrive before the abort.
package func printError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}

/// Written at once (unbuffered): a replay's last lines must be out before a crash.
package func printOutput(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}
