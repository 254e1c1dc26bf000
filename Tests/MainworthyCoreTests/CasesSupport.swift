import CompanionCore
import CompanionHTTP
import Foundation
import MainworthyCore
import Testing

extension ReferenceServer {
    /// The Cases tab of `user`'s workspace in `project`, filing into `memory`.
    @MainActor
    func cases(_ user: String, memory: CaseMemory = CaseMemory(), project: String = "shop") async throws
        -> CasesRootScreen
    {
        let workspace = try await workspace(user, project: project)
        return try #require(await CasesRootScreen.open(workspace: workspace, memory: memory))
    }

    /// Sends a proposal outside any editor (another person's edit, or a body the app would not send).
    func propose(_ connection: MainworthyConnection, _ body: ProposalBody) async throws(MainworthyError)
        -> ProposalReply
    {
        try await connection.perform(connection.command(MainworthyAPI.propose("shop", body)))
    }

    /// Posts a pipeline report with the fixture's token.
    func report(_ body: JSONValue) async throws {
        var request = Request<JSONValue>.post("/api/projects/shop/reports", body: body)
            .idempotencyKey(UUID().uuidString)
        request.headers["Authorization"] = "Bearer \(try await pipelineToken())"
        _ = try await control.send(request)
    }
}

extension CaseListScreen {
    /// Shows the list and waits for the read it started.
    func appearAndRead() async {
        appear()
        await reading?.value
    }

    /// The case numbers listed.
    var numbers: [String] {
        rows.compactMap {
            if case .caseRow(let row) = $0 { return row.number }
            return nil
        }
    }
}

extension CaseSearch {
    /// The hits' numbers.
    var numbers: [String] { cases.map(\.number) }
}

/// `count` times `unit`.
func repeated(_ unit: String, _ count: Int) -> String { String(repeating: unit, count: count) }
