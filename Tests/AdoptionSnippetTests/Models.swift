import CertainCore
import CompanionAuth
import Foundation
import MainworthyCore
import OmnigentCore
import PrompTugalCore

// snippet: certain
/// The overview screen of the account a sign-in stored (`CertainServer.signIn`).
@MainActor func certainOverview(of stored: StoredCredential) async throws -> OverviewModel {
    OverviewModel(server: try await CertainServer.open(stored, environment: Companion.environment))
}
// end snippet

// snippet: omnigent
/// The sessions list of the Omnigent server a person typed the address of.
@MainActor func omnigentSessions(at text: String) async throws -> SessionsListModel {
    let address = try Companion.environment.address(text)
    let connection = try await OmnigentConnector.connect(address, environment: Companion.environment)
    let account = try await OmnigentServer.account(of: connection, environment: Companion.environment)
    let server = try await OmnigentServer.open(connection, account: account, environment: Companion.environment)
    return SessionsListModel(server: server)
}
// end snippet

// snippet: mainworthy
/// The workspace of the account a sign-in stored, or `nil` before the first sign-in (`MainworthySignIn`).
@MainActor func mainworthyWorkspace(server url: URL) async throws -> MainworthyWorkspace? {
    let build = MainworthyBuild(server: url, version: "1.0")
    guard let server = try await MainworthyServer.stored(build: build, environment: Companion.environment) else {
        return nil
    }
    return MainworthyWorkspace(server: server)
}
// end snippet

// snippet: promptugal
/// The command centre, read from the team's published files (no sign-in).
@MainActor func promptugalCommandCentre() async throws -> CommandCentreModel {
    let server = try await PrompTugalServer.open(sites: .production, environment: Companion.environment)
    return CommandCentreModel(team: TeamData(server: server))
}
// end snippet
