import CompanionScreen
import Foundation
import Observation

/// The signed-in user (C-AUTH-7): who the device token belongs to, read with the token alone through the kit's
/// store, so the name still shows offline with its time.
@Observable @MainActor
public final class UserModel {
    /// What the screen shows.
    public private(set) var state: ScreenState<CertainUser> = .loading
    @ObservationIgnored private let server: CertainServer

    /// The user of `server`'s account.
    public init(server: CertainServer) {
        self.server = server
    }

    /// Loads the user: the stored copy at once with its age, then the server's.
    public func load() async {
        for await update in server.bundle.read(CertainAPI.me, showing: state) {
            state = update.state
            if update.endsSignIn { await server.lookups.forget() }
        }
    }
}
