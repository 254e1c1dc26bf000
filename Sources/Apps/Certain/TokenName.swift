import Foundation

/// The name of the device token, so a person can tell this phone's token apart from others under
/// Settings → Device tokens and revoke just that one (C-TOK-10): `Certain für iOS (iPhone von Guido)`.
public enum TokenName {
    /// The app's name as the token list shows it.
    public static let app = "Certain für iOS"

    /// `app (device)`, trimmed; a blank device name leaves the app name alone. At most 200 characters, the
    /// server's limit.
    public static func make(app: String = TokenName.app, device: String) -> String {
        let device = device.trimmingCharacters(in: .whitespacesAndNewlines)
        let name = device.isEmpty ? app : "\(app) (\(device))"
        return String(name.prefix(200))
    }
}
