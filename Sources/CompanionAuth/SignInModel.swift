import CompanionCore
import Foundation
import Observation

/// The screen-facing sign-in model: holds the current `SignInState` and runs each step against a
/// `SignInServer`, storing the credential at the end.
///
/// Rules: the model never keeps a password or code beyond the call that sends it; a second tap while
/// a step is in flight is ignored; the credential is in the `SecretStore` before the state says
/// `signedIn`, so an app killed right after sign-in starts signed in.
@Observable
@MainActor
public final class SignInModel {
    /// The current step.
    public private(set) var state: SignInState
    /// The transport policy addresses are parsed with (https only unless the app chose otherwise).
    public let policy: TransportPolicy
    @ObservationIgnored private let makeServer: @Sendable (ServerAddress) -> any SignInServer
    @ObservationIgnored private let store: any SecretStore
    @ObservationIgnored private let journal: Journal
    @ObservationIgnored private var server: (any SignInServer)?
    @ObservationIgnored private let fixedAddress: ServerAddress?

    /// Creates a model starting at the address step (or at the password step when `address` is fixed
    /// by the build, as for Mainworthy M-AUTH-1).
    public init(
        policy: TransportPolicy = .httpsOnly, address: ServerAddress? = nil, store: any SecretStore,
        journal: Journal = Journal(), server makeServer: @escaping @Sendable (ServerAddress) -> any SignInServer
    ) {
        self.policy = policy
        self.makeServer = makeServer
        self.store = store
        self.journal = journal
        fixedAddress = address
        if let address {
            state = .enteringPassword(address, problem: nil)
            server = makeServer(address)
        } else {
            state = .enteringAddress(problem: nil)
        }
    }

    private func apply(_ event: SignInEvent) {
        move(to: state.next(event))
    }

    private func move(to next: SignInState) {
        guard next != state else { return }
        state = next
        journal.record(.auth, "sign-in: \(Self.name(of: state))")
    }

    /// Parses `text` and probes the server there.
    public func submitAddress(_ text: String) async {
        guard case .enteringAddress = state else { return }
        let address: ServerAddress
        do {
            address = try ServerAddress(parsing: text, policy: policy)
        } catch {
            state = .enteringAddress(problem: .notRecognized(reason: error.description))
            return
        }
        apply(.addressEntered(address))
        let server = makeServer(address)
        self.server = server
        do {
            try await server.probe()
            apply(.probeAnswered(.success(())))
        } catch {
            apply(.probeAnswered(.failure(error)))
        }
    }

    /// Sends user name and password.
    public func submitPassword(username: String, password: String) async {
        guard case .enteringPassword = state, let server else { return }
        apply(.passwordSubmitted(username: username))
        await answer { () async throws(AuthError) in try await server.signIn(username: username, password: password) }
    }

    /// Sends a second-factor code.
    public func submitCode(_ code: String, kind: SecondFactorKind = .totp) async {
        guard case .enteringCode = state, let server else { return }
        apply(.codeSubmitted)
        await answer { () async throws(AuthError) in try await server.submitCode(code, kind: kind) }
    }

    /// Sends the forced password change.
    public func submitNewPassword(current: String, new: String) async {
        guard case .changingPassword = state, let server else { return }
        apply(.newPasswordSubmitted)
        await answer { () async throws(AuthError) in try await server.changePassword(current: current, new: new) }
    }

    /// Goes back to the first step: the address step, or the password step at the same address when the
    /// address is fixed by the build (there is no address step to go back to, Mainworthy M-AUTH-1).
    public func restart() {
        guard let fixedAddress else {
            server = nil
            apply(.restart)
            return
        }
        server = makeServer(fixedAddress)
        move(to: .enteringPassword(fixedAddress, problem: nil))
    }

    private func answer(_ step: () async throws(AuthError) -> ServerStep) async {
        let reply: ServerStep
        do {
            reply = try await step()
        } catch {
            reply = .refused(error)
        }
        apply(.serverAnswered(reply))
        guard case .storingCredential = state, let server else { return }
        do {
            let credential = try await server.issueCredential()
            do {
                try store.save(credential)
            } catch {
                throw AuthError.store(error)
            }
            journal.record(.keys, "stored \(credential)")
            apply(.credentialStored(.success(credential.account)))
        } catch let error as AuthError {
            apply(.credentialStored(.failure(error)))
        } catch {
            apply(.credentialStored(.failure(.unexpectedReply("storing the credential failed"))))
        }
    }

    static func name(of state: SignInState) -> String {
        switch state {
        case .enteringAddress: return "address"
        case .probing: return "probing"
        case .enteringPassword: return "password"
        case .submittingPassword: return "checking password"
        case .enteringCode: return "second factor"
        case .submittingCode: return "checking code"
        case .changingPassword: return "password change"
        case .submittingNewPassword: return "changing password"
        case .storingCredential: return "storing credential"
        case .needsWebSetup: return "web setup needed"
        case .signedIn(let account): return "signed in as \(account)"
        }
    }
}
