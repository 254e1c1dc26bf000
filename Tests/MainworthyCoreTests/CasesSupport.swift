import CompanionApp
import CompanionCore
import CompanionHTTP
import Foundation
import MainworthyCore
import Testing

extension ReferenceServer {
    /// The Cases tab of `user`'s workspace in `project` (in `environment`, whose memory stores hold its drafts and
    /// recent lists).
    @MainActor
    func cases(_ user: String, project: String = "shop", environment: AppEnvironment? = nil) async throws
        -> CasesRootModel
    {
        let workspace = try await workspace(user, project: project, environment: environment)
        return try #require(workspace.cases)
    }

    /// Sends a proposal outside any editor (another person's edit, or a body the app would not send).
    func propose(_ server: MainworthyServer, _ body: ProposalBody) async throws(MainworthyError) -> ProposalReply {
        try await server.perform(server.command(MainworthyAPI.propose("shop", body)))
    }

    /// The id of case `number` (`C-12`), found with the case search as the app finds it: the server's case ids
    /// need not be its numbers.
    @MainActor
    func caseID(_ number: String) async throws -> String {
        try await cases("ada").caseID(for: number)
    }

    /// Another device of ada's gives case `caseID` (at version 1) the title `title`, adopted at once; returns
    /// that device's server.
    @discardableResult
    func retitleElsewhere(_ caseID: String, to title: String) async throws -> MainworthyServer {
        let other = try await signedIn("ada")
        let reply = try await propose(
            other,
            ProposalBody(
                .editCase(caseID: caseID, baseVersion: 1),
                document: CaseDocument(title: title, preconditions: "", steps: []), reason: nil))
        #expect(reply.proposal.state == "adopted")
        return other
    }

    /// Posts a pipeline report with the fixture's token.
    func report(_ body: JSONValue) async throws {
        var request = Request<JSONValue>.post("/api/projects/shop/reports", body: body)
            .idempotencyKey(UUID().uuidString)
        request.headers["Authorization"] = "Bearer \(try await pipelineToken())"
        _ = try await control.send(request)
    }
}

extension CasesRootModel {
    /// The page of case `number` (`C-12`), its id found with the case search.
    func casePage(number: String) async throws -> CaseModel {
        casePage(try await caseID(for: number))
    }
}

extension CaseListModel {
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

extension CaseSearchModel {
    /// The hits' numbers.
    var numbers: [String] { cases.map(\.number) }
}

/// `count` times `unit`.
func repeated(_ unit: String, _ count: Int) -> String { String(repeating: unit, count: count) }
