import CompanionCore
import Foundation

/// Parses JSON text a test writes out; a test's own text that is not JSON is a mistake in the test.
func json(_ text: String) throws -> JSONValue {
    guard let value = JSONValue(data: Data(text.utf8)) else { throw TestJSONError(text: text) }
    return value
}

/// A test's JSON text did not parse.
struct TestJSONError: Error, CustomStringConvertible {
    let text: String
    var description: String { "not JSON: \(text.prefix(80))" }
}
