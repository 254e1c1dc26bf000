import CompanionScreen

extension ServerBundle {
    /// `update` of a read made without the network: a stored copy shown with no problem is `offline` with the
    /// app's sentence for reading offline (`AppProfile.offlineCopy`), when the app gives one; otherwise `update`.
    func readOffline<Value>(_ update: ScreenUpdate<Value>, key: String) -> ScreenUpdate<Value> {
        guard let sentence = profile.offlineCopy?(key), case .stale(let value, let age, nil) = update.state else {
            return update
        }
        return ScreenUpdate(state: .offline(value, age: age, reason: sentence), failure: nil, endsSignIn: false)
    }
}
