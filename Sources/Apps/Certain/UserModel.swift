import CompanionApp
import CompanionScreen
import Foundation
import Observation

/// The signed-in user (C-AUTH-7): who the device token belongs to, read with the token alone. A kit feed, so
/// the name still shows offline with its time.
@Observable @MainActor
public final class UserModel {
    /// The user's feed.
    public let feed: ScreenFeed<CertainUser>
    @ObservationIgnored private let server: CertainServer

    /// What the screen shows.
    public var state: ScreenState<CertainUser> { feed.state }

    /// The user of `server`'s account.
    public init(server: CertainServer) {
        self.server = server
        feed = server.bundle.feed(CertainAPI.me)
    }

    /// Loads the user: the stored copy at once with its age, then the server's.
    public func load() async {
        await feed.refresh()
        if feed.endsSignIn { await server.lookups.forget() }
    }
}
