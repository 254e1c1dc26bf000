import CompanionApp
import CompanionCore
import CompanionHTTP
import Foundation
import Observation

/// What the watch shows on its main screen.
public enum WatchScreen: Sendable, Equatable {
    /// Nothing read yet.
    case idle
    /// Reading.
    case loading
    /// The sessions, grouped (needs attention, active, per project, recent; O-WATCH-11).
    case sessions([SessionGroup])
    /// The phone must sign in again (O-WATCH-9): no synced cookie, or the server refused it.
    case signInOnPhone
    /// Something else failed; the sentence says what.
    case problem(String)

    /// The sentence of the sign-in state (O-WATCH-9).
    public static let signInSentence = "Reopen Omnigent on your iPhone and sign in."
}

/// A message the watch sent, as it shows it until the transcript has it.
public struct WatchSentMessage: Sendable, Hashable, Identifiable {
    /// Where the message stands.
    public enum Status: Sendable, Hashable {
        /// The server took it as a new turn.
        case sent
        /// Queued behind the running turn (the ack carried `pending_id`).
        case pending(id: String)
        /// The server declined it; the reason is its own.
        case declined(reason: String)
        /// It could not be sent; the sentence is the server's when it gave one.
        case failed(String)
    }

    /// A local id.
    public let id: UUID
    /// The text.
    public var text: String
    /// Its status.
    public var status: Status

    /// Creates a sent message.
    public init(id: UUID, text: String, status: Status) {
        self.id = id
        self.text = text
        self.status = status
    }

    /// A message the server accepted, as its acknowledgement says: declined with the server's reason when
    /// `denied`, pending when it carries `pending_id` (waiting behind the running turn), sent otherwise.
    /// Omnigent 0.19.1 answers `queued: true` for every message it hands to a runner, so `queued` alone says
    /// nothing about waiting.
    public init(id: UUID, text: String, ack: EventAck) {
        let status: Status
        if ack.denied == true {
            status = .declined(reason: ack.reason ?? "The server declined the message.")
        } else if let pending = ack.pendingID {
            status = .pending(id: pending)
        } else {
            status = .sent
        }
        self.init(id: id, text: text, status: status)
    }
}

/// One session as the watch shows it (O-WATCH-2, O-WATCH-3, O-WATCH-5).
public struct WatchSessionDetail: Sendable, Equatable {
    /// The session (status, last task error, pending approvals and inputs).
    public var session: Session
    /// The newest 8 user or assistant text messages, oldest first.
    public var messages: [SessionItem]
    /// The approvals the watch offers: `form` elicitations with an empty schema.
    public var approvals: [Elicitation] { (session.pendingElicitations ?? []).filter(\.isSimpleApproval) }
    /// Why the session failed, when it did (`status == "failed"` with the server's error).
    public var failure: TaskError? { session.lastTaskError }
    /// Messages accepted but not yet consumed by a turn, shown as pending until the transcript holds them.
    public var pendingInputs: [PendingInput] { session.pendingInputs ?? [] }
}

/// The watch client: a model of its own on the phone-synced cookie, independent of the phone's
/// sign-in (the watch never signs in itself).
///
/// Rules:
/// - every request carries the synced `Cookie`, `X-Omnigent-Client: watchos` and `Cache-Control:
///   no-cache` (O-WATCH-7, `WatchRequestHeaders`); on a Databricks API base the slice key, with one
///   retry of a misrouted GET (O-WATCH-10);
/// - no synced cookie, or any 401 or 403 → `signInOnPhone` ("Reopen Omnigent on your iPhone and sign
///   in."), with no retry loop: nothing is sent again until a newer cookie arrives (O-WATCH-9);
/// - the list is `GET /v1/sessions?order=desc&sort_by=updated_at&limit=20` plus the projects
///   (O-WATCH-1); a detail is `GET /v1/sessions/{id}?include_items=false&include_liveness=false` (its status,
///   `last_task_error`, `pending_elicitations` and `pending_inputs`) plus its newest 8 chat messages
///   (O-WATCH-2, O-WATCH-3);
/// - live items come from the session's stream until `[DONE]` (`OmnigentStream`, O-WATCH-6);
/// - a sent message is shown as sent, as pending when the ack carries `pending_id`, with the server's
///   reason when `denied`, or with the server's sentence on 503 `runner_unavailable` (O-WATCH-4).
@Observable @MainActor
public final class WatchClient {
    /// The main screen.
    public private(set) var screen: WatchScreen = .idle
    /// The open session, if any.
    public private(set) var detail: WatchSessionDetail?
    /// The messages sent from the watch to the open session, newest last.
    public private(set) var sent: [WatchSentMessage] = []
    /// Why the last action on the open session failed, if it did.
    public private(set) var actionProblem: String?
    /// The replies being written in the open session, from the live stream's text deltas.
    public private(set) var streaming = LiveTranscript()
    /// Why the open session's running turn failed, as the live stream said.
    public private(set) var liveFailure: String?

    /// The watch's profile on the kit's road: its own user agent; like the phone's, no automatic
    /// `Idempotency-Key` (Omnigent ignores it) and a write is sent once.
    public nonisolated static let profile = AppProfile(
        userAgent: "CompanionKit-Omnigent-Watch/0.1", automaticIdempotencyKeys: false, revocation: .omnigent)

    /// The HTTP client for the API base, with `WatchRequestHeaders`.
    public nonisolated let client: Client
    /// Where the synced cookie is kept.
    public nonisolated let cookies: WatchCookieKeeper
    private let random: any RandomSource
    private let clock: any WallClock

    /// Creates the client for `apiBase` (origin plus mount, or a Databricks `…/api/2.0/omnigent`) on the
    /// environment's transport, journal and randomness. `hostID` is the slice key; it is sent only on a
    /// Databricks API base.
    public init(apiBase: URL, cookies: WatchCookieKeeper, hostID: String? = nil, environment: AppEnvironment) {
        let sliceKey = WatchRequestHeaders.isDatabricksAPIBase(apiBase) ? hostID : nil
        self.cookies = cookies
        self.random = environment.random
        self.clock = environment.clock
        client = environment.client(
            for: apiBase, profile: Self.profile,
            middlewares: [WatchRequestHeaders(cookies: cookies, sliceKey: sliceKey, journal: environment.journal)])
    }

    /// Reads the sessions list and the project names, and groups them.
    public func refresh() async {
        guard cookies.usable != nil else {
            screen = .signInOnPhone
            return
        }
        if case .sessions = screen {} else { screen = .loading }
        do {
            let page = try await client.send(OmnigentAPI.sessions(limit: 20))
            let projects = try await client.send(OmnigentAPI.projects())
            screen = .sessions(SessionGroup.group(page.data, projects: projects))
        } catch {
            if Self.refusedCookie(error) {
                cookies.markRefused()
                screen = .signInOnPhone
            } else {
                screen = .problem(SessionDetailModel.sentence(for: error))
            }
        }
    }

    /// Opens a session: its detail and newest messages.
    public func open(_ id: String) async {
        guard cookies.usable != nil else {
            screen = .signInOnPhone
            return
        }
        if detail?.session.id != id { sent = [] }
        actionProblem = nil
        do {
            let session = try await client.send(OmnigentAPI.session(id))
            let items = try await client.send(OmnigentAPI.items(id, limit: 50))
            detail = WatchSessionDetail(session: session, messages: Array(items.data.reversed()).lastChatMessages())
        } catch {
            fail(error)
        }
    }

    /// Sends `text` as a user message to session `id` (the open one by default).
    @discardableResult
    public func send(_ text: String, to session: String? = nil) async -> WatchSentMessage? {
        guard let id = session ?? detail?.session.id else { return nil }
        guard cookies.usable != nil else {
            screen = .signInOnPhone
            return nil
        }
        var message = WatchSentMessage(id: random.uuid(), text: text, status: .sent)
        do {
            let ack = try await client.send(
                WriteCommand(try OmnigentAPI.sendMessage(id, text: text), resend: .never, random: random).request)
            message = WatchSentMessage(id: message.id, text: text, ack: ack)
        } catch {
            if Self.refusedCookie(error) {
                cookies.markRefused()
                screen = .signInOnPhone
                return nil
            }
            message.status = .failed(SessionDetailModel.sentence(for: error))
        }
        sent.append(message)
        return message
    }

    /// The live items of session `id` over SSE (O-WATCH-6), with the watch's headers (`OmnigentStream`):
    /// `[DONE]` ends it, 45 s without data is a timeout, a frame over 1 MiB is dropped and the stream goes on.
    /// A 401 or 403 ends the stream with that status; the caller then shows `signInOnPhone` (see
    /// `refusedCookie`).
    public nonisolated func live(_ id: String) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        OmnigentStream.events(of: id, client: client)
    }

    /// Follows the open session's live stream (O-WATCH-6) until `[DONE]`, a failure or cancellation, as the real
    /// app's watch shows it: text deltas in `streaming`, a finished item and a consumed message join the messages
    /// (the newest 8), a consumed input's `cleared_pending_id` leaves the session's pending inputs and `sent`, a
    /// failed turn is said in `liveFailure`. The watch keeps no store: this is what it shows until it opens the
    /// session again. `limit` stops after that many messages joined.
    public func follow(limit: Int = .max) async {
        guard let id = detail?.session.id else { return }
        var joined = 0
        do {
            for try await event in live(id) {
                switch LiveEvent.read(event, client: client, now: clock.now()) {
                case .textDelta(let delta): streaming.append(delta)
                case .failed(let sentence):
                    liveFailure = sentence
                    streaming.reset()
                case .itemDone(let item):
                    streaming.commit(item.id)
                    liveFailure = nil
                    if join(item) { joined += 1 }
                case .inputConsumed(let message, let pendingID):
                    if let pendingID {
                        sent.removeAll { $0.status == .pending(id: pendingID) }
                        detail?.session.pendingInputs?.removeAll { $0.id == pendingID }
                    }
                    if let message, join(message) { joined += 1 }
                case .presence:
                    streaming.reset()
                    await open(id)
                case .heartbeat, .other: break
                }
                if joined >= limit { break }
            }
        } catch {
            if let error = error as? HTTPError { fail(error) } else { actionProblem = "The live stream stopped." }
        }
    }

    /// Adds `item` to the open session's messages (never twice, the newest 8); whether it was added.
    private func join(_ item: SessionItem) -> Bool {
        guard var shown = detail, !shown.messages.contains(where: { $0.id == item.id }) else { return false }
        shown.messages = (shown.messages + [item]).lastChatMessages()
        detail = shown
        return true
    }

    /// Accepts or declines an approval of the open session, then reads the session again.
    public func resolve(_ elicitation: String, accept: Bool) async {
        guard let id = detail?.session.id else { return }
        guard cookies.usable != nil else {
            screen = .signInOnPhone
            return
        }
        do {
            _ = try await client.send(
                WriteCommand(
                    try OmnigentAPI.resolve(id, elicitation: elicitation, accept: accept), resend: .never,
                    random: random
                ).request)
            await open(id)
        } catch {
            fail(error)
        }
    }

    private func fail(_ error: HTTPError) {
        if Self.refusedCookie(error) {
            cookies.markRefused()
            screen = .signInOnPhone
        } else {
            actionProblem = SessionDetailModel.sentence(for: error)
        }
    }

    /// Whether the server refused the synced cookie (any 401 or 403; O-WATCH-9).
    public nonisolated static func refusedCookie(_ error: HTTPError) -> Bool {
        error.statusCode == 401 || error.statusCode == 403
    }
}
