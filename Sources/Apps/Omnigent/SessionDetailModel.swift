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
/// moment), a feed of the kit's bundle: what the store holds shows at once, then the server's answer; a
/// failure, a 401 included, keeps what is on screen (O-ERR-2). A live item is a store write of the snapshot
/// (its items, or the session's pending inputs), which the feed, and every other screen of the session,
/// shows. Every write (a message, a rename, the archive flag, labels, an approval, the read state) is a
/// `WriteCommand` sent once and never resent: Omnigent ignores `Idempotency-Key`, so a resent message would be
/// posted twice. A message the server acknowledges with a `pending_id` waits behind the running turn and shows
/// as pending until a turn consumes it; an acknowledgement without one (0.19.1 answers `queued: true` for every
/// message it hands to a runner) is sent.
@Observable @MainActor
public final class SessionDetailModel {
    /// The session's id.
    public let sessionID: String
    /// The session and its newest messages, through the store.
    public let detail: ScreenFeed<SessionDetail>
    /// The message being typed.
    public private(set) var draft = ""
    /// The messages sent from this screen, newest last, until the transcript holds them.
    public private(set) var sent: [WatchSentMessage] = []
    /// Why the last send failed, in the server's words when it gave any.
    public private(set) var sendProblem: String?
    /// Why the last rename, archive, approval or read-state change failed.
    public private(set) var actionProblem: String?
    /// Whether a send is under way.
    public private(set) var isSending = false
    /// The replies being written, from the live stream's text deltas.
    public private(set) var live = LiveTranscript()
    /// Why the running turn failed, as the live stream said (`response.failed`, `response.error`).
    public private(set) var liveFailure: String?

    private let server: OmnigentServer
    private let messageCount: Int

    /// Creates the model for one session.
    public init(server: OmnigentServer, sessionID: String, messageCount: Int = 8) {
        self.server = server
        self.sessionID = sessionID
        self.messageCount = messageCount
        detail = server.bundle.feed(Self.snapshot(sessionID, messageCount: messageCount)) { $0 }
    }

    /// What the screen shows.
    public var state: ScreenState<SessionDetail> { detail.state }

    /// Set when the server ended the sign-in (401): how to sign in again, by the server's auth mode. What is
    /// on screen stays (O-ERR-2); a successful read clears it.
    public var signInRequired: SignInRoute? { detail.endsSignIn ? SignInRoute(server.connection) : nil }

    private var draftSubject: String { "omnigent.message.\(sessionID)" }

    /// The session and its newest 50 items, as one snapshot.
    var snapshot: Snapshot<SessionDetail> { Self.snapshot(sessionID, messageCount: messageCount) }

    /// The items member of the snapshot.
    private var itemsRequest: Request<OmnigentListPage<SessionItem>> { OmnigentAPI.items(sessionID, limit: 50) }

    static func snapshot(_ id: String, messageCount: Int) -> Snapshot<SessionDetail> {
        let session = OmnigentAPI.session(id)
        let items = OmnigentAPI.items(id, limit: 50)
        return Snapshot("omnigent.session \(id)", members: ["session": session, "items": items]) {
            members throws(HTTPError) in
            // Items come newest first; reversed they are in the order they were written.
            let chronological = Array(try members.value(items).data.reversed())
            return SessionDetail(
                session: try members.value(session), messages: chronological.lastChatMessages(messageCount))
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
        await detail.refresh(policy)
    }

    /// Sends the draft as a new turn. On success the draft is cleared and the message is listed in `sent`:
    /// pending when the server queued it behind the running turn (its ack carries `pending_id`), sent otherwise;
    /// on failure the draft stays and `sendProblem` holds the server's sentence (a runner-less server says
    /// `runner_unavailable`).
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
            sent.append(WatchSentMessage(id: server.bundle.random.uuid(), text: text, ack: ack))
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

    /// Follows the session's live stream until it ends (`[DONE]`), fails for good, or the task is cancelled:
    /// a finished item and a consumed message are stored with the snapshot (so every screen of the session shows
    /// them, offline too); text deltas show in `live` until their item is done; a failed turn in `liveFailure`.
    /// `limit` stops after that many stored items (for tests and the terminal client). `onOpen` runs once, when
    /// the server's first event shows the stream is open. On every (re)connection the detail is read again,
    /// since the server cannot replay what was missed (O-OPEN-20).
    public func followLive(limit: Int = .max, onOpen: (@Sendable () async -> Void)? = nil) async {
        var applied = 0
        var opened = false
        do {
            for try await event in OmnigentStream.events(of: sessionID, client: server.client) {
                if !opened {
                    opened = true
                    await onOpen?()
                }
                switch LiveEvent.read(event, client: server.client, now: server.bundle.clock.now()) {
                case .presence:
                    // Sent on every (re)connection. Omnigent has no `Last-Event-ID`, so what was posted
                    // while the stream was down is read again (O-OPEN-20).
                    live.reset()
                    await refresh(policy: .fresh)
                    continue
                case .textDelta(let delta):
                    live.append(delta)
                    continue
                case .failed(let sentence):
                    liveFailure = sentence
                    live.reset()
                    continue
                case .itemDone(let item):
                    live.commit(item.id)
                    liveFailure = nil
                    await store(item)
                case .inputConsumed(let message, let pendingID):
                    if let pendingID { sent.removeAll { $0.status == .pending(id: pendingID) } }
                    await consumed(message, pendingID: pendingID)
                    guard message != nil else { continue }
                case .heartbeat, .other:
                    continue
                }
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
        guard case .itemDone(let item) = LiveEvent.read(event, client: client, now: Date(timeIntervalSince1970: 0))
        else { return nil }
        return item
    }

    /// Stores a finished item with the snapshot's items (newest first, never twice); when no snapshot is stored
    /// yet, the detail is read.
    private func store(_ item: SessionItem) async {
        let stored = try? await server.bundle.update(snapshot, member: itemsRequest) { page in
            guard !page.data.contains(where: { $0.id == item.id }) else { return }
            page.data.insert(item, at: 0)
        }
        if stored != true { await refresh(policy: .fresh) }
    }

    /// Stores a consumed message: the session no longer lists its pending input, the items hold the message.
    private func consumed(_ message: SessionItem?, pendingID: String?) async {
        if let pendingID {
            _ = try? await server.bundle.update(snapshot, member: OmnigentAPI.session(sessionID)) { session in
                session.pendingInputs?.removeAll { $0.id == pendingID }
            }
        }
        if let message { await store(message) }
    }
}
