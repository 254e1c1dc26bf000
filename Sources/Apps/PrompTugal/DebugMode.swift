import CompanionCore
import Foundation
import Observation

/// Where the debug switch is kept between launches (user defaults on device, a file for the terminal).
public protocol DebugFlagStorage: Sendable {
    /// The saved value, or `nil` on first launch.
    func load() -> Bool?
    /// Saves the value.
    func save(_ on: Bool)
}

/// A flag kept in memory, for tests and previews.
public final class InMemoryDebugFlag: DebugFlagStorage {
    private let value = Locked<Bool?>(nil)

    /// A flag never saved.
    public init() {}

    /// The saved value.
    public func load() -> Bool? { value.withLock { $0 } }

    /// Saves the value.
    public func save(_ on: Bool) { value.withLock { $0 = on } }
}

/// A flag kept in a file (`on` or `off`), for the terminal client.
public struct FileDebugFlag: DebugFlagStorage {
    /// The file.
    public let url: URL

    /// A flag in `url`.
    public init(url: URL) { self.url = url }

    /// The saved value; `nil` when the file is missing or unreadable.
    public func load() -> Bool? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        switch text.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "on": return true
        case "off": return false
        default: return nil
        }
    }

    /// Writes `on` or `off`, in a 0600 file (a state file) in a 0700 folder.
    public func save(_ on: Bool) {
        try? FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        _ = FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        try? Data((on ? "on\n" : "off\n").utf8).write(to: url)
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }
}

/// The debug panels, in the order they are listed (P-DEBUG-3).
public enum DebugPanel: String, Sendable, Hashable, CaseIterable, Identifiable {
    /// Every vault request, cache hit, check and decryption.
    case vaultTraffic = "vault"
    /// Every HTTP request the app made.
    case network
    /// Every bridge message.
    case bridge
    /// Stored files and cache entries with sizes and ages.
    case storage
    /// Which keys exist and where, never their values.
    case keys
    /// Version, build, commit and site release.
    case build

    /// The id (the terminal's panel name).
    public var id: String { rawValue }

    /// The panel's title.
    public var title: String {
        switch self {
        case .vaultTraffic: return "Vault traffic"
        case .network: return "Network"
        case .bridge: return "Bridge"
        case .storage: return "Storage"
        case .keys: return "Keys"
        case .build: return "Build"
        }
    }
}

/// Debug mode: off on first launch, turned on by three taps on the version label or the Settings switch.
///
/// Rules (P-DEBUG-1..3, P-OPEN-22): off until turned on; three taps within the tap window (1 s from the first of
/// the three) turn it on, one or two do nothing; taps only turn it on, the Settings switch turns it on and off;
/// the state persists across launches and is there in release builds. When on, exactly six panels are
/// reachable; when off, none is.
@MainActor @Observable
public final class DebugMode {
    /// Whether debug mode is on.
    public private(set) var isOn: Bool
    /// The tap window.
    public let tapWindow: Duration

    @ObservationIgnored private let storage: any DebugFlagStorage
    @ObservationIgnored private let clock: any WallClock
    @ObservationIgnored private var taps: [Date] = []

    /// Reads the saved state (off when nothing is saved).
    public init(
        storage: any DebugFlagStorage, clock: any WallClock, tapWindow: Duration = .seconds(1)
    ) {
        self.storage = storage
        self.clock = clock
        self.tapWindow = tapWindow
        self.isOn = storage.load() ?? false
    }

    /// One tap on the version label.
    public func tapVersion() {
        let now = clock.now()
        taps = taps.filter { now.timeIntervalSince($0) < tapWindow.seconds } + [now]
        guard taps.count >= 3 else { return }
        taps.removeAll()
        set(true)
    }

    /// The Settings switch.
    public func set(_ on: Bool) {
        isOn = on
        storage.save(on)
    }

    /// The panels reachable now: all six when on, none when off.
    public var panels: [DebugPanel] { isOn ? DebugPanel.allCases : [] }
}
