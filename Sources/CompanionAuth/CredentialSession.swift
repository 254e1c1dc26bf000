import CompanionCore
import Foundation

/// Renews an expired access token with its refresh token.
///
/// Rule: a refresher only talks to the server; the `CredentialSession` decides when to call it (once
/// for many concurrent 401s) and stores the result before anyone uses it.
public protocol TokenRefresher: Sendable {
    /// Returns the renewed credential (with a rotated refresh token when the server rotates them).
    func refresh(_ credential: StoredCredential) async throws(AuthError) -> StoredCredential
}

/// Whether the app holds a working credential.
public enum AuthStatus: Sendable, Hashable {
    /// A credential for this account is in use.
    case signedIn(AccountKey)
    /// No credential is in use. `account` is the one last signed in (its drafts and offline data stay
    /// filed under it), `reason` why the sign-out happened, `nil` when the person signed out.
    case signedOut(account: AccountKey?, reason: AuthError?)
}

/// The credential in use for one server, shared by every request that carries it.
///
/// Rules:
/// - Single-flight refresh: any number of concurrent 401s on the same credential cause exactly one
///   refresh; the others wait for it and retry with its result.
/// - The renewed credential (with a rotated refresh token) is in the `SecretStore` before any request
///   uses it, so a crash right after a refresh never leaves only the spent refresh token stored.
/// - A refresh the server refused (or whose result cannot be stored) signs out; it is never retried in a loop. A
///   refresh that got no answer, or no usable one (a 5xx), keeps the credential for the next try (Home Assistant
///   H-TOK-7: a server restarting must not sign the person out).
/// - With a clock, a bearer token is renewed before use once it expires within `refreshLeeway` (H-TOK-2), by the
///   same single-flight refresh.
/// - Revocation (401/403/410 on the credential in use) signs out, deletes the stored credential and
///   keeps `lastAccount`, so data filed under the account survives and the same person signing in
///   again finds it (M-AUTH-8, M-DRAFT-2, C-TOK-6).
/// - A failure of an older credential (one already replaced by a refresh) changes nothing.
public actor CredentialSession {
    private let store: any SecretStore
    private let refresher: (any TokenRefresher)?
    private let journal: Journal
    private var current: StoredCredential?
    private var refreshing: Task<Result<StoredCredential, AuthError>, Never>?
    private let clock: (any WallClock)?
    /// How long before its expiry a bearer token is renewed ahead of use, when the session has a clock.
    public let refreshLeeway: TimeInterval
    private var observers: [UUID: AsyncStream<AuthStatus>.Continuation] = [:]
    /// The current status.
    public private(set) var status: AuthStatus
    /// How many refreshes this session started (for tests and diagnostics).
    public private(set) var refreshCount = 0

    /// Creates a session using `stored` (or signed out when `nil`); with `clock`, tokens are renewed
    /// `refreshLeeway` seconds before they expire.
    public init(
        stored: StoredCredential?, store: any SecretStore, refresher: (any TokenRefresher)? = nil,
        journal: Journal = Journal(), clock: (any WallClock)? = nil, refreshLeeway: TimeInterval = 60
    ) {
        self.store = store
        self.refresher = refresher
        self.journal = journal
        self.clock = clock
        self.refreshLeeway = refreshLeeway
        self.current = stored
        self.status = stored.map { .signedIn($0.account) } ?? .signedOut(account: nil, reason: nil)
        for secret in stored?.credential.secretValues ?? [] { journal.register(secret: secret) }
    }

    /// Creates a session from the credential stored for `account`, signed out when there is none.
    public init(
        account: AccountKey, store: any SecretStore, refresher: (any TokenRefresher)? = nil,
        journal: Journal = Journal(), clock: (any WallClock)? = nil, refreshLeeway: TimeInterval = 60
    ) throws(AuthError) {
        let stored: StoredCredential?
        do {
            stored = try store.load(account)
        } catch {
            throw .store(error)
        }
        self.init(
            stored: stored, store: store, refresher: refresher, journal: journal, clock: clock,
            refreshLeeway: refreshLeeway)
    }

    /// The credential in use, if any.
    public var credential: StoredCredential? { current }

    /// The credential to send now: the one in use, or, when the session has a clock and it is a bearer token with
    /// a refresh token that expires within `refreshLeeway`, the result of the one refresh in flight (H-TOK-2/3).
    public func usable() async -> StoredCredential? {
        guard let current else { return nil }
        guard let clock, refresher != nil, case .bearer(_, _?, let expiresAt?) = current.credential,
            expiresAt.addingTimeInterval(-refreshLeeway) <= clock.now()
        else { return current }
        return await refreshed(after: current) ?? self.current
    }

    /// The account last signed in, kept after a sign-out.
    public var lastAccount: AccountKey? {
        switch status {
        case .signedIn(let account): return account
        case .signedOut(let account, _): return account
        }
    }

    /// A stream of status changes, starting with the current status.
    public func statusUpdates() -> AsyncStream<AuthStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: AuthStatus.self, bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        observers[id] = continuation
        continuation.yield(status)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        return stream
    }

    private func removeObserver(_ id: UUID) { observers[id] = nil }

    private func setStatus(_ new: AuthStatus) {
        status = new
        for continuation in observers.values { continuation.yield(new) }
    }

    /// Stores `stored` and starts using it.
    public func use(_ stored: StoredCredential) throws(AuthError) {
        do {
            try store.save(stored)
        } catch {
            throw .store(error)
        }
        for secret in stored.credential.secretValues { journal.register(secret: secret) }
        current = stored
        setStatus(.signedIn(stored.account))
    }

    /// The credential to retry with after `failed` got a 401: the result of the one refresh in flight
    /// (started now if none is), or `nil` when the session is signed out.
    public func refreshed(after failed: StoredCredential) async -> StoredCredential? {
        guard let current else { return nil }
        if current.credential != failed.credential { return current }
        if let refreshing { return try? await refreshing.value.get() }
        guard let refresher, current.credential.refreshToken != nil else {
            signOut(reason: .signedOut(status: 401, serverSentence: nil))
            return nil
        }
        refreshCount += 1
        journal.record(.auth, "refreshing \(current.credential)", fields: ["account": current.account.description])
        let store = self.store
        let journal = self.journal
        let task = Task<Result<StoredCredential, AuthError>, Never> {
            do throws(AuthError) {
                let renewed = try await refresher.refresh(current)
                for secret in renewed.credential.secretValues { journal.register(secret: secret) }
                do throws(SecretStoreError) {
                    try store.save(renewed)
                } catch {
                    throw AuthError.store(error)
                }
                return .success(renewed)
            } catch {
                return .failure(error)
            }
        }
        refreshing = task
        let result = await task.value
        refreshing = nil
        switch result {
        case .success(let renewed):
            self.current = renewed
            journal.record(.auth, "refreshed \(renewed.credential)")
            return renewed
        case .failure(let error):
            journal.record(.auth, "refresh failed: \(error.description)")
            switch error {
            case .http, .unexpectedReply:
                // No answer, or none that says anything about the credential: it stays for the next try.
                return nil
            default: break
            }
            let reason: AuthError
            if case .refreshFailed = error { reason = error } else { reason = .refreshFailed(serverSentence: nil) }
            signOut(reason: reason)
            return nil
        }
    }

    /// Reports that `failed` was refused with `status`: signs out when it is the credential in use.
    public func revoked(_ failed: StoredCredential, status: Int, serverSentence: String?) {
        guard let current, current.credential == failed.credential else { return }
        journal.record(
            .auth, "credential refused with \(status); signing out", fields: ["account": current.account.description])
        signOut(reason: .signedOut(status: status, serverSentence: serverSentence))
    }

    /// Signs out: forgets and deletes the credential, keeps the account (and so its data).
    public func signOut(reason: AuthError? = nil) {
        let account = current?.account ?? lastAccount
        if let account { try? store.delete(account) }
        current = nil
        setStatus(.signedOut(account: account, reason: reason))
    }
}
