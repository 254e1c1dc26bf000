import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation

/// One signed-in Certain account on one server: the kit's `ServerBundle` with Certain's `AppProfile`, the texts
/// of the person's language, and the lookups every screen names ids from.
///
/// Rules:
/// - Every screen is a kit feed of the bundle (`bundle.feed`: the overview as one snapshot, the transactions as
///   one of the kit's paged lists); the client, the store, the clock and the journal are the bundle's. The only writes are the sign-in steps and the mint
///   (`CertainSignIn`) and the sign-out's revoke.
/// - Certain's revocation rule (`revocation`): a 401 whose body is Certain's JSON envelope with a credential
///   code (`not_authenticated`, `session_expired`, `token_revoked`), or a 403 whose envelope says
///   `token_revoked`, ends the sign-in; so does a 401 in Certain's JSON envelope with no code at all (a plain
///   `{"detail": …}`: §2 proposes codes, the seed names none, so a backend that sends none still locks a revoked
///   token out). Anything else (a reverse proxy's HTML 403 or 401 page, a 401 with another code, a 403 saying a
///   device token may not mint, a 403 without a code) is an error shown with the content kept, and the person
///   stays signed in.
/// - Certain's data policy (`data`): offline, and wiped when the sign-in ends by revocation (C-OFF-5): the token
///   is a full access and revoking it is the answer to a lost phone. The kit's `StoreRegistry.wipe` does it.
/// - A failure is worded with the server's own `detail` sentence, word for word, or its 422 list as
///   "field: message" (C-ERR-2); a failure without Certain's envelope keeps the kit's sentence. A search that
///   cannot reach the server says that it needs one: there is no local search (C-OFF-3).
/// - "This month" is the person's own month, in their time zone (`timeZone`), never the server's: the overview
///   and the budget's default month ask for it by name (`thisMonth`).
/// - The server's address is kept outside the secret store by default (`open`, C-ADDR-4): a revocation deletes
///   the token, never the address.
public struct CertainServer: Sendable {
    /// Which refusals end the sign-in (see the type's rules).
    public static let revocation = RevocationRule(
        statuses: [401, 403],
        endingCodes: [401: ["not_authenticated", "session_expired", "token_revoked"], 403: ["token_revoked"]],
        codelessEnds: [401: "detail"])

    /// Offline, wiped on revocation (C-OFF-5).
    public static let data = DataPolicy(storage: .offline, wipesOnRevocation: true)

    /// Certain's profile, with the server's sentences asked for in `language` (`Accept-Language`).
    public static func profile(_ language: Language = .german) -> AppProfile {
        let texts = Texts(language)
        return AppProfile(
            userAgent: "CompanionKit/0.1 (Certain)", headers: ["Accept-Language": language.acceptLanguage],
            revocation: revocation, data: data,
            sentence: { failure in
                if failure.http?.isConnectivity == true, failure.key?.hasPrefix(TransactionsModel.listKey) == true {
                    return texts["error.needs_connection"]
                }
                return failure.http.map(sentence) ?? failure.description
            })
    }

    /// The sentence a screen shows for `error`: the `detail` of Certain's JSON envelope word for word, its 422
    /// list reduced to "field: message", otherwise the kit's description (C-ERR-2).
    @Sendable public static func sentence(_ error: HTTPError) -> String {
        // A JSON envelope keeps the whole body in `details`; an HTML page's title (a proxy's) has none.
        guard let envelope = error.envelope, envelope.details != nil else { return error.description }
        if !envelope.fieldProblems.isEmpty {
            return envelope.fieldProblems.map { "\($0.field): \($0.message)" }.joined(separator: "; ")
        }
        if let message = envelope.message, !message.isEmpty { return message }
        return error.description
    }

    /// The server's parts: client, store, fetcher, snapshots, clock, journal, secrets.
    public let bundle: ServerBundle
    /// The language of the texts and of the server's sentences.
    public let language: Language
    /// The texts in `language`.
    public let texts: Texts
    /// The lookups (categories, tags, accounts), loaded once and shared by every screen.
    public let lookups: CertainLookups
    /// The person's time zone: the one "this month" is read in.
    public let timeZone: TimeZone

    /// Joins a bundle opened with Certain's profile; "this month" is read in `timeZone` (the device's).
    public init(bundle: ServerBundle, language: Language, timeZone: TimeZone = .current) {
        self.bundle = bundle
        self.language = language
        self.texts = Texts(language)
        self.lookups = CertainLookups(bundle: bundle)
        self.timeZone = timeZone
    }

    /// The person's current month: the bundle's clock read in `timeZone` (at 00:30 on the 1st in Berlin it is
    /// the new month, whatever the month is in UTC).
    public var thisMonth: BudgetMonth { CalendarDate.today(bundle.clock.now(), in: timeZone).budgetMonth }

    /// Opens the signed-in account of `stored` (the device token) in `environment`: its session on the
    /// environment's secret store, its offline store from the environment's registry (one per server and
    /// user, C-OFF-4). The server's address is remembered in `addresses` (the app group's address book by
    /// default), outside the secret store (C-ADDR-4); `nil` remembers it nowhere.
    public static func open(
        _ stored: StoredCredential, language: Language = .german, timeZone: TimeZone = .current,
        environment: AppEnvironment, addresses: CertainAddressBook? = CertainAddressBook()
    ) async throws(StoreError) -> CertainServer {
        let session = CredentialSession(stored: stored, store: environment.secrets, journal: environment.journal)
        let bundle = try await ServerBundle.open(
            stored.address.url, account: stored.account, profile: profile(language), session: session,
            environment: environment)
        addresses?.remember(stored.address, account: stored.account)
        return CertainServer(bundle: bundle, language: language, timeZone: timeZone)
    }

    /// The sign-in for a server at `address`: a client with Certain's profile from `environment`, the device
    /// token named after the app and `device` (C-TOK-10).
    public static func signIn(
        _ address: ServerAddress, device: String, language: Language = .german, environment: AppEnvironment
    ) -> CertainSignIn {
        CertainSignIn(
            address: address, client: environment.client(for: address.url, profile: profile(language)),
            tokenName: TokenName.make(device: device))
    }

    /// The session of the device token.
    public var session: CredentialSession? { bundle.session }

    /// Signs out on purpose (O-12): revokes this device's token on the server, forgets it, and deletes this
    /// server and user's offline data (as a revocation does). The address stays. A revoke the server did not
    /// confirm is returned, and signs out all the same.
    public func signOut() async -> AuthError? {
        var problem: AuthError?
        if let session { problem = await CertainSignIn.signOut(session: session, client: bundle.client) }
        await lookups.forget()
        do {
            try await bundle.wipe()
        } catch {
            bundle.journal.record(.auth, "signed out, but the offline data could not be deleted: \(error.description)")
        }
        return problem
    }
}
