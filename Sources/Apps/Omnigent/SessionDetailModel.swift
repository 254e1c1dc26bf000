import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionStore
import CompanionSync
import Foundation
import Observation

/// A session and its last messages, as the detail screen shows them.
public struct SessionDetail: Sendable, Equatable {
    /// The session.
    public var session: Session
    /// The newest chat messages, oldest first (O-WATCH-3, O-OPEN-19).
    public var messages: [SessionItem]
}

/// The session detail screen: the session, its last messages, sending, approvals, rename, archive,
/// read state, and live items over SSE. A message being typed is a draft in the offline store, so
/// it survives the app going away and a failed send (the server's sentence is shown, the text stays).
///
/// Rules: the session and its newest items are one snapshot (read together, stored together, shown from one
/// moment), read through the kit's bundle: what the store holds shows at once, then the server's answer; a
/// failure, a 401 included, keeps what is on screen (O-ERR-2). Every write (a message, a rename, the archive
/// flag, labels, an approval, the read state) is a `WriteCommand` sent once and never resent: Omnigent ignores
/// `Idempotency-Key`, so a resent message would be posted twice.
@Observable @MainActor
public final class SessionDetailModel {
    /// The session's id.
    public let sessionID: String
    /// What the screen shows.
    public private(set) var state: ScreenState<SessionDetail> = .loading
    /// The message being typed.
    public private(set) var draft = ""
    /// Why the last send failed, in the server's words when it gave any.
    public private(set) var sendProblem: String?
    /// Why the last rename, archive, approval or read-state change failed.
    public private(set) var actionProblem: String?
    /// Whether a send is under way.
    public private(set) var isSending = false

    /// Set when the server ended the sign-in (401): how to sign in again, by the server's auth mode. What is
    /// on screen stays (O-ERR-2); a successful load clears it.
    public private(set) var signInRequired: SignInRoute?

    private let server: OmnigentServer
    private let messageCount: Int

    /// Creates the model for one session.
    public init(server: OmnigentServer, sessionID: String, messageCount: Int = 8) {
        self.server = server
        self.sessionID = sessionID
        self.messageCount = messageCount
    }

    private var draftSubject: String { "omnigent.message.\(sessionID)" }

    /// The session and its newest 50 items, as one snapshot.
    var snapshot: Snapshot<SessionDetail> {
        let session = OmnigentAPI.session(sessionID)
        let items = OmnigentAPI.items(sessionID, limit: 50)
        let count = messageCount
        return Snapshot("omnigent.session \(sessionID)", members: ["session": session, "items": items]) {
            members throws(HTTPError) in
            // Items come newest first; reversed they are in the order they were written.
            let chronological = Array(try members.value(items).data.reversed())
            return SessionDetail(session: try members.value(session), messages: chronological.lastChatMessages(count))
        }
    }

    /// Reads the saved draft back (call when the screen appears).
    public func restoreDraft() async {
        if let saved = try? await server.store.draft(draftSubject) {
            draft = String(decoding: saved.body, as: UTF8.self)
        }
    }

    /// Changes the draft and saves it in the store.
    public func updateDraft(_ text: String) async {
        draft = text
        try? await server.store.saveDraft(draftSubject, body: Data(text.utf8))
    }

    /// Shows the stored detail at once, then the server's (the session and its items together).
    public func refresh(policy: FetchPolicy = .staleWhileRevalidate) async {
        if state.value == nil { state = .loading }
        for await update in server.bundle.read(snapshot, policy: policy, showing: state, { $0 }) {
            state = update.state
            if update.endsSignIn {
                signInRequired = SignInRoute(server.connection)
            } else if update.failure == nil, state.kind != .failed {
                signInRequired = nil
            }
        }
    }

    /// Sends the draft as a new turn. On success the draft is cleared; on failure it stays and
    /// `sendProblem` holds the server's sentence (a runner-less server says `runner_unavailable`).
    public func send() async {
        let text = draft.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, !isSending else { return }
        isSending = true
        defer { isSending = false }
        do {
            let ack = try await server.bundle.send(
                server.bundle.command(try OmnigentAPI.sendMessage(sessionID, text: text)))
            if ack.denied == true {
                sendProblem = "The server declined the message: \(ack.reason ?? "no reason given")."
                return
            }
            sendProblem = nil
            await updateDraft("")
        } catch {
            sendProblem = Self.sentence(for: error)
        }
    }

    /// The sentence shown for a failed send: the server's own words first.
    public nonisolated static func sentence(for error: HTTPError) -> String {
        if error.envelope?.code == "runner_unavailable" {
            let said = error.envelope?.message ?? "no runner"
            return "This session has no runner to answer (the server said: \(said)). Start its runner, then send again."
        }
        return error.envelope?.summary ?? error.description
    }

    /// Renames the session.
    public func rename(_ title: String) async {
        await perform(try OmnigentAPI.update(sessionID, title: title))
    }

    /// Archives (or restores) the session.
    public func setArchived(_ archived: Bool) async {
        await perform(try OmnigentAPI.update(sessionID, archived: archived))
    }

    /// Replaces the session's labels.
    public func setLabels(_ labels: [String: String]) async {
        await perform(try OmnigentAPI.update(sessionID, labels: labels))
    }

    /// Accepts or declines a pending approval (only simple ones, O-WATCH-5).
    public func resolve(_ elicitation: Elicitation, accept: Bool) async {
        guard elicitation.isSimpleApproval else {
            actionProblem = "This approval needs the full web page to answer."
            return
        }
        await perform(try OmnigentAPI.resolve(sessionID, elicitation: elicitation.id, accept: accept))
    }

    /// Marks the session read up to its newest message.
    public func markRead() async {
        guard let newest = state.value?.messages.last?.createdAt else { return }
        await perform(try OmnigentAPI.markRead(sessionID, lastSeen: Int(newest.timeIntervalSince1970)))
    }

    /// Sends one write (built by `request`) as a command, then reads the detail again.
    private func perform<Response>(_ request: @autoclosure () throws(HTTPError) -> Request<Response>) async {
        do {
            _ = try await server.bundle.send(server.bundle.command(try request()))
            actionProblem = nil
            await refresh(policy: .fresh)
        } catch {
            actionProblem = server.bundle.sentence(for: error)
        }
    }

    /// Follows the session's live stream: every finished item is applied to the screen and stored
    /// with the snapshot, so it is there offline too. Returns when the stream ends (`[DONE]`), fails for good,
    /// or the task is cancelled; `limit` stops after that many applied items (for tests and the terminal
    /// client). `onOpen` runs once, when the server's first event shows the stream is open. On every
    /// (re)connection the detail is read again, since the server cannot replay what was missed (O-OPEN-20).
    public func followLive(limit: Int = .max, onOpen: (@Sendable () async -> Void)? = nil) async {
        var applied = 0
        var opened = false
        do {
            for try await event in OmnigentStream.events(of: sessionID, client: server.client) {
                if !opened {
                    opened = true
                    await onOpen?()
                }
                if event.event == "session.presence" {
                    // Sent on every (re)connection. Omnigent has no `Last-Event-ID`, so what was posted
                    // while the stream was down is read again (O-OPEN-20).
                    await refresh(policy: .fresh)
                    continue
                }
                guard event.event == "response.output_item.done" else { continue }
                guard let item = Self.item(from: event, client: server.client) else { continue }
                apply(item)
                // Store it with the snapshot, so the message is there offline too.
                let snapshot = self.snapshot
                _ = try? await server.bundle.snapshots.refresh(snapshot.name, snapshot.members)
                applied += 1
                if applied >= limit { break }
            }
        } catch {
            actionProblem = (error as? HTTPError).map(server.bundle.sentence(for:)) ?? "The live stream stopped."
        }
    }

    /// The item an `output_item.done` event carries, if it decodes (with the client's decoder, so its
    /// dates follow the same rules as every reply).
    nonisolated static func item(from event: ServerSentEvent, client: Client) -> SessionItem? {
        guard let object = JSONValue(data: Data(event.data.utf8))?["item"] else { return nil }
        return try? client.decode(SessionItem.self, from: Data(object.jsonString().utf8))
    }

    private func apply(_ item: SessionItem) {
        guard var detail = state.value else { return }
        guard !detail.messages.contains(where: { $0.id == item.id }) else { return }
        var all = detail.messages
        all.append(item)
        detail.messages = all.lastChatMessages(messageCount)
        state = .content(detail, fetchedAt: server.bundle.clock.now())
    }
}
