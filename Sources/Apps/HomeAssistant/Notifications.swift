import CompanionCore
import CompanionHTTP
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

/// One push received over the local push channel (H-MOB-16).
public struct LocalPush: Sendable, Hashable {
    /// The event as Home Assistant sent it (`message`, `title`, `data`, `hass_confirm_id`).
    public var payload: JSONValue
    /// What it is; `nil` when it has no `message` string.
    public var message: PushMessage?
    /// `hass_confirm_id`: confirmed once the push was presented (H-MOB-17).
    public var confirmID: String?
}

extension HomeAssistantConnection {
    /// How soon a local push must be confirmed: after that Home Assistant drops the channel and sends the push as a
    /// remote push instead (H-MOB-17).
    public static let confirmWithin: Duration = .seconds(10)

    /// Follows this device's local push channel on this connection (H-MOB-16, H-MOB-17) until `present` answers
    /// `false` (that push is still confirmed) or the connection stops.
    ///
    /// Rules: `mobile_app/push_notification_channel` with `webhook_id` and `support_confirm: true`, made again by the
    /// channel on every ready (one subscription: Home Assistant keeps one channel per webhook id); each push is
    /// handed to `present`, then its `hass_confirm_id` confirmed with `mobile_app/push_notification_confirm` (a
    /// write: sent once, only while ready); a confirm answered `not_found` (Home Assistant dropped the channel after
    /// `confirmWithin`) subscribes again at once. `subscribed` is called each time the subscription is sent.
    /// Throws the server's refusal of the subscription (`not_found` "Webhook ID not found", `unauthorized`).
    public func followLocalPush(
        webhookID: String, newID: @escaping @Sendable () -> String = { UUID().uuidString },
        subscribed: @escaping @Sendable () -> Void = {}, present: @escaping @Sendable (LocalPush) async -> Bool
    ) async throws(ChannelError) {
        let body: JSONValue = [
            "type": "mobile_app/push_notification_channel", "webhook_id": .string(webhookID), "support_confirm": true,
        ]
        subscribing: while true {
            let events = await channel.subscribe(body)
            subscribed()
            do {
                for try await event in events {
                    let push = LocalPush(
                        payload: event, message: PushMessage.read(event, newID: newID),
                        confirmID: event["hass_confirm_id"]?.stringValue)
                    let more = await present(push)
                    let lost = await confirm(push, webhookID: webhookID)
                    if !more { return }
                    if lost { continue subscribing }
                }
                return
            } catch let error as ChannelError {
                // A channel refused while mobile_app is still loading: again after it loaded (H-CONN-14).
                if case .server(let code, _) = error, code == "unknown_command",
                    await waitToResubscribe(after: error)
                {
                    continue subscribing
                }
                throw error
            } catch {
                throw .unreadable("\(error)")
            }
        }
    }

    /// Confirms `push` (H-MOB-17); whether Home Assistant answered that the channel is gone (`not_found`).
    private func confirm(_ push: LocalPush, webhookID: String) async -> Bool {
        guard let id = push.confirmID else { return false }
        do {
            _ = try await channel.send(
                [
                    "type": "mobile_app/push_notification_confirm", "webhook_id": .string(webhookID),
                    "confirm_id": .string(id),
                ], readyWithin: .zero)
            return false
        } catch {
            journal.record(.sync, "Home Assistant: a local push was not confirmed: \(error)")
            if case .server(let code, _) = error, code == "not_found" { return true }
            return false
        }
    }
}

/// Drops a remote push that repeats a local one (H-NOT-4): Home Assistant sends a push whose confirm came late as a
/// remote push too.
///
/// Rule: a remote push with the same tag (`data.tag`) as a local push received in the last 60 s is dropped; without
/// a tag, the same `message`, `title` and `data` count as the same push. A local push is never dropped.
public struct PushRepeats: Sendable {
    /// How long a local push keeps its remote repeat out.
    public static let window: TimeInterval = 60

    private enum Key: Hashable {
        case tag(String)
        case content(message: JSONValue?, title: JSONValue?, data: JSONValue?)
    }

    private var local: [(key: Key, at: Date)] = []

    /// No push seen yet.
    public init() {}

    private static func key(_ payload: JSONValue) -> Key {
        if case .string(let tag)? = payload["data"]?["tag"], !tag.isEmpty { return .tag(tag) }
        return .content(message: payload["message"], title: payload["title"], data: payload["data"])
    }

    /// Notes a push received over the local channel at `date`.
    public mutating func receivedLocally(_ payload: JSONValue, at date: Date) {
        local.removeAll { date.timeIntervalSince($0.at) > Self.window }
        local.append((Self.key(payload), date))
    }

    /// Whether a remote push received at `date` is shown: `false` when it repeats a local push of the last 60 s.
    public func showsRemote(_ payload: JSONValue, at date: Date) -> Bool {
        let key = Self.key(payload)
        return !local.contains { $0.key == key && date.timeIntervalSince($0.at) <= Self.window }
    }
}
