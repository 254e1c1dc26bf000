import CompanionCore
import Foundation

/// A notification to show, read from a local-push event or the same payload from a remote push (H-NOT-1): plain
/// data the Apple glue presents.
public struct HomeAssistantNotification: Sendable, Hashable {
    /// Whether a sound plays.
    public enum Sound: String, Sendable, Hashable {
        /// The default sound.
        case `default`
        /// No sound (`data.push.sound: "none"`).
        case none
    }

    /// The id: `data.tag`, else a new one. A notification with an id already delivered replaces that one.
    public var id: String
    /// The body (`message`).
    public var body: String
    /// The title, if any.
    public var title: String?
    /// The subtitle (`data.subtitle`), if any.
    public var subtitle: String?
    /// The thread (`data.group`), if any.
    public var thread: String?
    /// The sound.
    public var sound: Sound
    /// `data.url`, kept for the glue.
    public var url: String?
    /// `data.actions`, kept for the glue.
    public var actions: JSONValue?
    /// `data.image`, kept for the glue.
    public var image: String?
    /// The whole `data` object, as sent.
    public var data: [String: JSONValue]
}

/// A message that is a command, never shown (H-NOT-2); its `title` is ignored.
public enum NotificationCommand: Sendable, Hashable {
    /// `request_location_update(s)`: one `update_location` with the next fix.
    case requestLocationUpdate
    /// `clear_notification`: remove the notification with this tag.
    case clearNotification(tag: String)
    /// `clear_badge`: badge 0.
    case clearBadge
    /// `update_widgets`: refresh the widgets.
    case updateWidgets
    /// `update_complications`: refresh the Watch complications.
    case updateComplications
}

/// What one push payload is.
public enum PushMessage: Sendable, Hashable {
    /// A notification to show.
    case show(HomeAssistantNotification)
    /// A command to carry out, not shown.
    case command(NotificationCommand)

    /// Reads a local-push event (`{"message", "title"?, "data"?, "hass_confirm_id"?}`) or a remote push body (the
    /// same with `push_token` and `registration_info`); `newID` makes the id of one without a tag. `nil` when there
    /// is no `message` string.
    public static func read(_ payload: JSONValue, newID: () -> String) -> PushMessage? {
        guard let message = payload["message"]?.stringValue else { return nil }
        let data = payload["data"]?.objectValue ?? [:]
        let text = { (key: String) -> String? in
            guard case .string(let value)? = data[key], !value.isEmpty else { return nil }
            return value
        }
        switch message {
        case "request_location_update", "request_location_updates": return .command(.requestLocationUpdate)
        case "clear_badge": return .command(.clearBadge)
        case "update_widgets": return .command(.updateWidgets)
        case "update_complications": return .command(.updateComplications)
        case "clear_notification":
            if let tag = text("tag") { return .command(.clearNotification(tag: tag)) }
        default: break
        }
        let sound: HomeAssistantNotification.Sound =
            data["push"]?["sound"]?.stringValue?.lowercased() == "none" ? .none : .default
        return .show(
            HomeAssistantNotification(
                id: text("tag") ?? newID(), body: message, title: payload["title"]?.stringValue,
                subtitle: text("subtitle"), thread: text("group"), sound: sound, url: text("url"),
                actions: data["actions"], image: text("image"), data: data))
    }
}

/// The notifications delivered and still shown, newest last: a notification replaces one with the same id, and
/// `clear_notification` removes one (H-NOT-1, H-NOT-2). The glue mirrors it in the notification center.
public struct DeliveredNotifications: Sendable, Hashable {
    /// The notifications shown, in delivery order.
    public private(set) var shown: [HomeAssistantNotification] = []
    /// The badge.
    public private(set) var badge = 0

    /// Nothing delivered yet.
    public init() {}

    /// Applies one message: a notification is shown (replacing one with its id), a command that changes what is
    /// shown is carried out. Returns the command for the caller to carry out when it is not about what is shown
    /// (a location update, a refresh).
    @discardableResult
    public mutating func apply(_ message: PushMessage) -> NotificationCommand? {
        switch message {
        case .show(let notification):
            shown.removeAll { $0.id == notification.id }
            shown.append(notification)
            badge += 1
            return nil
        case .command(.clearNotification(let tag)):
            shown.removeAll { $0.id == tag }
            return nil
        case .command(.clearBadge):
            badge = 0
            return nil
        case .command(let other):
            return other
        }
    }
}

extension MobileApp {
    /// Fires `mobile_app_notification_action` through the webhook `fire_event` when the person chose an action or
    /// replied (H-NOT-3): `action`, plus `action_data` and `reply_text` when present.
    public func notificationAction(_ action: String, actionData: JSONValue? = nil, replyText: String? = nil)
        async throws(MobileAppError)
    {
        var eventData: [String: JSONValue] = ["action": .string(action)]
        if let actionData { eventData["action_data"] = actionData }
        if let replyText { eventData["reply_text"] = .string(replyText) }
        _ = try await webhook(
            "fire_event",
            data: ["event_type": "mobile_app_notification_action", "event_data": .object(eventData)],
            expecting: [200])
    }

    /// Carries out a command that needs the server (H-NOT-2): `request_location_update` sends one `update_location`
    /// with `nextFix` (the glue's next fix). Returns whether a webhook was sent.
    @discardableResult
    public func carryOut(_ command: NotificationCommand, nextFix: () async -> LocationFix?)
        async throws(MobileAppError) -> Bool
    {
        guard command == .requestLocationUpdate, let fix = await nextFix() else { return false }
        try await updateLocation(fix)
        return true
    }
}
