import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

extension AgainstReferenceServer {
    /// What a follower of the project's stream shows when its session goes while the stream is open (P10,
    /// 2026-12-07: a reset of the shared stand-in by another benchmark signed the P10 core out mid-run, and the
    /// benchmark only saw its count of events stop).
    @Suite struct StreamSession {
        @MainActor @Test(.timeLimit(.minutes(1))) func aSessionGoneUnderAnOpenStreamEndsItFailedAndSignsOut()
            async throws
        {
            // M-AUTH-8, M-CHG-11: the stand-in is reset under an open stream (a new fixture: every session gone,
            // the stream closed). The reconnect is the next call: its 401 ends the stream as failed and signs the
            // workspace out. Events stop only with the person told, never while the stream says it runs.
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let events = ProjectEvents(workspace: workspace, project: "shop")
            let list = ChangesModel(workspace: workspace, project: "shop", events: events)
            await list.refresh()
            defer { events.stop() }
            let reply = try await server.report(PipelineReport(commit: "5e55105", branch: "feat/p10"))
            let id = try #require(reply.change)
            let arrived = await waitUntilObserved(upTo: .seconds(20)) { list.state.value?.first?.id == id }
            #expect(arrived, "the report's event reached the list while the session lived")
            #expect(events.status == .running && !workspace.signedOut)

            try await server.reset()
            let ended = await waitUntilObserved(upTo: .seconds(20)) {
                if case .failed = events.status { return true }
                return false
            }
            #expect(ended, "the stream ended as failed once its session was gone, not left running")
            #expect(workspace.signedOut)
        }
    }
}
