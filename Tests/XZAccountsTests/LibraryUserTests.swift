import XCTest
@testable import XZAccounts
import XZStats
final class LibraryUserTests: XCTestCase {
    func testTheOwnerIsUserZero() { XCTAssertTrue(LibraryUser(id: .owner, name: "a", isAdmin: true).isOwner) }
}
