import CompanionAuth
import CompanionCore
import Foundation
import Testing

/// Every transition of the sign-in machine, each on its own (pure function of state and event).
@Suite struct SignInStateTests {
    let address: ServerAddress
    let account = AccountKey(serverKey: "https://certain.example", userID: "1")

    init() throws { address = try ServerAddress(parsing: "https://certain.example") }

    @Test func addressEnteredStartsTheProbe() {
        #expect(SignInState.enteringAddress(problem: nil).next(.addressEntered(address)) == .probing(address))
    }

    @Test("C-ADDR-3") func recognizedServerAsksForThePassword() {
        #expect(
            SignInState.probing(address).next(.probeAnswered(.success(()))) == .enteringPassword(address, problem: nil))
    }

    @Test("C-ADDR-3") func unrecognizedServerStaysOnTheAddressWithTheReason() {
        let problem = AuthError.notRecognized(reason: "no /api/version")
        #expect(
            SignInState.probing(address).next(.probeAnswered(.failure(problem))) == .enteringAddress(problem: problem))
    }

    @Test("H-AUTH-6: an attempt the server ended goes back to the password step with its reason, from either step")
    func endedAttemptStartsOverAtThePassword() {
        let reason = AuthError.signInEnded(.tooManyAttempts, serverSentence: nil)
        let code = SignInState.submittingCode(address, username: "ci", kinds: [.totp])
        #expect(code.next(.serverAnswered(.ended(reason))) == .enteringPassword(address, problem: reason))
        let password = SignInState.submittingPassword(address, username: "ci")
        #expect(password.next(.serverAnswered(.ended(reason))) == .enteringPassword(address, problem: reason))
        #expect(reason.description == "Too many wrong codes: sign in again with your password.")
    }

    @Test func passwordSubmittedWaitsForTheServer() {
        let state = SignInState.enteringPassword(address, problem: .wrongCredentials(serverSentence: nil))
        #expect(state.next(.passwordSubmitted(username: "plain")) == .submittingPassword(address, username: "plain"))
    }

    @Test("C-AUTH-1") func passwordAcceptedGoesStraightToStoringTheCredential() {
        let state = SignInState.submittingPassword(address, username: "plain")
        #expect(state.next(.serverAnswered(.authenticated)) == .storingCredential(address, username: "plain"))
    }

    @Test("C-AUTH-2") func wrongPasswordStaysOnThePasswordStepWithTheServerSentence() {
        let problem = AuthError.wrongCredentials(serverSentence: "Benutzername oder Passwort falsch.")
        let state = SignInState.submittingPassword(address, username: "plain")
        #expect(state.next(.serverAnswered(.refused(problem))) == .enteringPassword(address, problem: problem))
        #expect(state.next(.serverAnswered(.refused(problem))).problem == problem)
    }

    @Test("C-AUTH-3") func passwordThenSecondFactorAsksForACode() {
        let state = SignInState.submittingPassword(address, username: "totp")
        #expect(
            state.next(.serverAnswered(.secondFactor([.totp, .recoveryCode])))
                == .enteringCode(address, username: "totp", kinds: [.totp, .recoveryCode], problem: nil))
    }

    @Test("C-AUTH-5") func passwordThenForcedChangeAsksForANewPassword() {
        let state = SignInState.submittingPassword(address, username: "mustchange")
        #expect(
            state.next(.serverAnswered(.passwordChange))
                == .changingPassword(address, username: "mustchange", problem: nil))
    }

    @Test("C-AUTH-6") func passwordThenWebSetupShowsTheLinkAndStops() throws {
        let url = try #require(URL(string: "https://certain.example/einstellungen/sicherheit"))
        let state = SignInState.submittingPassword(address, username: "mfapolicy")
        #expect(state.next(.serverAnswered(.webSetup(url))) == .needsWebSetup(address, url: url))
        #expect(
            SignInState.needsWebSetup(address, url: url).next(.passwordSubmitted(username: "x"))
                == .needsWebSetup(address, url: url))
    }

    @Test func codeSubmittedWaitsForTheServer() {
        let state = SignInState.enteringCode(address, username: "totp", kinds: [.totp], problem: nil)
        #expect(state.next(.codeSubmitted) == .submittingCode(address, username: "totp", kinds: [.totp]))
    }

    @Test("C-AUTH-3") func rightCodeGoesToStoringTheCredential() {
        let state = SignInState.submittingCode(address, username: "totp", kinds: [.totp])
        #expect(state.next(.serverAnswered(.authenticated)) == .storingCredential(address, username: "totp"))
    }

    @Test("C-AUTH-3") func wrongCodeStaysOnTheCodeStep() {
        let problem = AuthError.wrongCode(serverSentence: "Code ungültig.")
        let state = SignInState.submittingCode(address, username: "totp", kinds: [.totp])
        #expect(
            state.next(.serverAnswered(.refused(problem)))
                == .enteringCode(address, username: "totp", kinds: [.totp], problem: problem))
    }

    @Test("C-AUTH-5") func codeThenForcedPasswordChange() {
        let state = SignInState.submittingCode(address, username: "both", kinds: [.totp])
        #expect(
            state.next(.serverAnswered(.passwordChange)) == .changingPassword(address, username: "both", problem: nil))
    }

    @Test func codeThenAnotherFactorStepAsksAgain() {
        let state = SignInState.submittingCode(address, username: "x", kinds: [.totp])
        #expect(
            state.next(.serverAnswered(.secondFactor([.recoveryCode])))
                == .enteringCode(address, username: "x", kinds: [.recoveryCode], problem: nil))
    }

    @Test func codeThenWebSetup() {
        let state = SignInState.submittingCode(address, username: "x", kinds: [.totp])
        #expect(state.next(.serverAnswered(.webSetup(nil))) == .needsWebSetup(address, url: nil))
    }

    @Test func newPasswordSubmittedWaitsForTheServer() {
        let state = SignInState.changingPassword(address, username: "mustchange", problem: nil)
        #expect(state.next(.newPasswordSubmitted) == .submittingNewPassword(address, username: "mustchange"))
    }

    @Test("C-AUTH-5") func acceptedNewPasswordGoesToStoringTheCredential() {
        let state = SignInState.submittingNewPassword(address, username: "mustchange")
        #expect(state.next(.serverAnswered(.authenticated)) == .storingCredential(address, username: "mustchange"))
    }

    @Test func refusedNewPasswordStaysOnTheChangeStep() {
        let problem = AuthError.passwordRefused(serverSentence: "Zu schwach.")
        let state = SignInState.submittingNewPassword(address, username: "mustchange")
        #expect(
            state.next(.serverAnswered(.refused(problem)))
                == .changingPassword(address, username: "mustchange", problem: problem))
    }

    @Test func newPasswordThenSecondFactorAndWebSetup() {
        let state = SignInState.submittingNewPassword(address, username: "m")
        #expect(
            state.next(.serverAnswered(.secondFactor([.totp])))
                == .enteringCode(address, username: "m", kinds: [.totp], problem: nil))
        #expect(state.next(.serverAnswered(.passwordChange)) == .changingPassword(address, username: "m", problem: nil))
        #expect(state.next(.serverAnswered(.webSetup(nil))) == .needsWebSetup(address, url: nil))
    }

    @Test func passwordThenPasswordStepsAgainIsRefusedWithReason() {
        let state = SignInState.submittingPassword(address, username: "m")
        let problem = AuthError.http(.offline(detail: "test"))
        #expect(state.next(.serverAnswered(.refused(problem))) == .enteringPassword(address, problem: problem))
    }

    @Test("C-TOK-1") func storedCredentialSignsIn() {
        let state = SignInState.storingCredential(address, username: "plain")
        #expect(state.next(.credentialStored(.success(account))) == .signedIn(account))
    }

    @Test("C-TOK-9") func failedMintReturnsToSignInWithTheReasonNeverOnward() {
        let problem = AuthError.tokenCannotMint(serverSentence: nil)
        let state = SignInState.storingCredential(address, username: "plain")
        #expect(state.next(.credentialStored(.failure(problem))) == .enteringPassword(address, problem: problem))
    }

    @Test func restartFromAnyStateReturnsToTheAddress() {
        let states: [SignInState] = [
            .probing(address), .enteringPassword(address, problem: nil),
            .submittingCode(address, username: "a", kinds: []),
            .needsWebSetup(address, url: nil), .signedIn(account), .storingCredential(address, username: "a"),
        ]
        for state in states { #expect(state.next(.restart) == .enteringAddress(problem: nil)) }
    }

    @Test func eventsThatDoNotFitTheStateChangeNothing() {
        let samples: [(SignInState, SignInEvent)] = [
            (.enteringAddress(problem: nil), .serverAnswered(.authenticated)),
            (.probing(address), .passwordSubmitted(username: "x")),
            (.enteringPassword(address, problem: nil), .serverAnswered(.authenticated)),
            (.submittingPassword(address, username: "x"), .codeSubmitted),
            (.enteringCode(address, username: "x", kinds: [], problem: nil), .serverAnswered(.authenticated)),
            (.changingPassword(address, username: "x", problem: nil), .codeSubmitted),
            (.signedIn(account), .serverAnswered(.authenticated)),
            (.storingCredential(address, username: "x"), .serverAnswered(.passwordChange)),
            (.enteringAddress(problem: nil), .probeAnswered(.success(()))),
        ]
        for (state, event) in samples { #expect(state.next(event) == state) }
    }

    @Test func derivedPropertiesFollowTheState() {
        #expect(SignInState.probing(address).isWaiting)
        #expect(!SignInState.enteringPassword(address, problem: nil).isWaiting)
        #expect(SignInState.enteringCode(address, username: "a", kinds: [], problem: nil).address == address)
        #expect(SignInState.signedIn(account).address == nil)
    }
}
