import CompanionBridge
import CompanionCore

/// An app → page call through one of the non-writable `window.__omnigentNativeEmit*` functions.
///
/// Rules (O-BRIDGE-9/10): arguments are JSON literals (`JavaScriptLiteral`), so any path or text arrives
/// intact and cannot break out of the script; the sidebar drag progress is clamped to 0…1; the function is
/// called as `window.__omnigentNativeEmit<Name>?.(…)`, as the real app does, so a page without the
/// bootstrap (another server's error page) ignores it instead of throwing.
public enum OmnigentEmit: Sendable, Hashable {
    /// A notification with this path was tapped.
    case notificationActivated(path: String)
    /// Route the SPA to this path in place.
    case openPath(String)
    /// The native Chat/Terminal bar changed mode.
    case viewModeChanged(mode: String)
    /// The native bars' heights in points (the page reads `{topBar, bottomBar}`).
    case insets(bottomBar: Double, topBar: Double = 0)
    /// The answer to `getServerPicker`, echoing its request id.
    case serverPicker(requestId: String, info: JSONValue)
    /// A sidebar drag gesture: its phase and progress (clamped to 0…1).
    case sidebarDrag(phase: String, progress: Double)
    /// The visible viewport above the keyboard, in points; `getKeyboardViewport()` returns it from then on.
    case keyboardViewport(width: Double, height: Double)
    /// The answer to a page call that awaits one (`notify`, `signOutOfServer`), echoing its request id.
    case reply(requestId: String, value: JSONValue)

    /// The script to evaluate in the page.
    public var script: String {
        let name: String
        let arguments: [JSONValue]
        switch self {
        case .notificationActivated(let path):
            (name, arguments) = ("NotificationActivated", [.string(path)])
        case .openPath(let path):
            (name, arguments) = ("OpenPath", [.string(path)])
        case .viewModeChanged(let mode):
            (name, arguments) = ("ViewModeChanged", [.string(mode)])
        case .insets(let bottomBar, let topBar):
            (name, arguments) = ("Insets", [.number(Self.points(bottomBar)), .number(Self.points(topBar))])
        case .serverPicker(let requestId, let info):
            (name, arguments) = ("ServerPicker", [.string(requestId), info])
        case .sidebarDrag(let phase, let progress):
            let clamped = progress.isFinite ? min(max(progress, 0), 1) : 0
            (name, arguments) = ("SidebarDrag", [.string(phase), .number(clamped)])
        case .keyboardViewport(let width, let height):
            (name, arguments) = ("KeyboardViewport", [.number(Self.points(width)), .number(Self.points(height))])
        case .reply(let requestId, let value):
            (name, arguments) = ("Reply", [.string(requestId), value])
        }
        let list = arguments.map(JavaScriptLiteral.literal).joined(separator: ", ")
        return "window.__omnigentNativeEmit\(name)?.(\(list));"
    }

    /// A length in points: finite and not negative.
    private static func points(_ value: Double) -> Double { value.isFinite ? max(0, value) : 0 }
}
