import CertainCore
import CompanionCore
import Foundation
import Testing

/// The transactions query as the terminal prints it (docs/cli-json.md, `certain transactions --json`'s `query`).
struct QueryJSONTests {
    @Test("docs/cli-json.md: a query's JSON carries its filters by their documented names, absent ones left out")
    func aQuerysJSONCarriesTheDocumentedMembers() throws {
        let query = TransactionQuery(search: "ramen", accountID: 3, categoryID: 5, tagID: 7)
        let value = JSONValue(data: try JSONEncoder().encode(query))
        guard case .object(let members)? = value else { throw Failure("not an object: \(String(describing: value))") }
        #expect(Set(members.keys) == ["search", "account_id", "category_id", "tag_id"])
        #expect(members["account_id"] == .integer(3) && members["category_id"] == .integer(5))
        #expect(members["tag_id"] == .integer(7) && members["search"] == .string("ramen"))
        #expect(try JSONDecoder().decode(TransactionQuery.self, from: try JSONEncoder().encode(query)) == query)
    }
}
