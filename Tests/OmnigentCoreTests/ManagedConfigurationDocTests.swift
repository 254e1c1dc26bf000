import CompanionCore
import CompanionLinks
import Foundation
import Testing

@testable import OmnigentCore

/// The administrators' document for managed configuration agrees with the code that reads it.
@MainActor
struct ManagedConfigurationDocTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/omnigent-managed-configuration.md")

    @Test("O-MDM-17: the document's codes, key and sample payload match ManagedConfiguration")
    func documentMatchesCode() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        // The code table: `| 100 | … |` rows.
        let documented = text.split(separator: "\n").compactMap { line -> Int? in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard line.hasPrefix("| "), let first = cells.first, first.count == 3 else { return nil }
            return Int(first)
        }
        let unusable = ServerAddressError.empty
        let errors: [ManagedConfigurationError] = [
            .notAnArrayOfStrings, .tooManyEntries(count: 11), .invalidURL(index: 0, reason: unusable),
            .notHTTPS(index: 0, reason: unusable),
        ]
        #expect(Set(documented) == Set(errors.map(\.code)), "every code is documented, once")
        #expect(documented.count == errors.count)
        #expect(errors.allSatisfy { $0.code < 0x7000_0000 })
        // The order the document states is the order the code checks: a payload that breaks two rules is
        // reported with the one listed first (103 before 102 before the entries; among the entries, the first
        // bad one, 100 or 101 alike).
        func code(_ payload: [String: ManagedValue]) -> Int? {
            let model = ServerSetupModel(environment: OmnigentFixture.environment(policy: .httpsOnly))
            model.applyManagedConfiguration(declarative: .dictionary(payload), classic: nil)
            return model.managedConfigurationCode
        }
        #expect(documented.firstIndex(of: 103) == 0)
        #expect(code(["serverUrls": .array(Array(repeating: .integer(1), count: 12))]) == 103, "103 before 102")
        #expect(documented.firstIndex(of: 102) == 1)
        let eleven = (1...10).map { ManagedValue.string("https://s\($0).example.com") }
        #expect(code(["serverUrls": .array(eleven + [.string("http://a.example.com")])]) == 102, "102 before 101")
        #expect(code(["serverUrls": .array(eleven + [.string("")])]) == 102, "102 before 100")
        #expect(code(["serverUrls": .array([.string(""), .string("http://a.example.com")])]) == 100)
        #expect(code(["serverUrls": .array([.string("http://a.example.com"), .string("")])]) == 101)
        #expect(text.contains("`\(ManagedConfiguration.serverURLsKey)`"))
        #expect(text.contains("at most \(ManagedConfiguration.maximumEntries)"))
        // The sample payload is accepted as written.
        let start = try #require(text.range(of: "```json\n"))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let sample = try #require(JSONValue(data: Data(text[start.upperBound..<end.lowerBound].utf8)))
        let urls = try #require(sample["serverUrls"]?.arrayValue).compactMap(\.stringValue)
        let model = ServerSetupModel(environment: OmnigentFixture.environment(policy: .httpsOnly))
        model.applyManagedConfiguration(
            declarative: .dictionary(["serverUrls": .array(urls.map(ManagedValue.string))]), classic: nil)
        #expect(model.managedConfigurationCode == nil)
        #expect(model.presets.map(\.description) == urls)
    }
}
