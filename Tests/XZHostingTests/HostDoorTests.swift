import XCTest
@testable import XZHosting
