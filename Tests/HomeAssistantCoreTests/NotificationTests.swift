import CompanionCore
import Foundation
import HomeAssistantCore
import Testing

/// Push payloads as notification values and commands (H-NOT-1, H-NOT-2), from the iOS app's parser test cases
/// (`NotificationParserLegacy`: tag_and_group.json, with_titles.json, sound_none.json, command_*.json).
@Suite struct NotificationTests {
    func read(_ payload: JSONValue) -> PushMessage? { PushMessage.read(payload, newID: { "generated" }) }

    func notification(_ payload: JSONValue) throws -> HomeAssistantNotification {
        guard case .show(let notification)? = read(payload) else { throw NotShown() }
        return notification
    }

    struct NotShown: Error {}

    @Test("H-NOT-1: tag_and_group.json → body, id = tag, thread = group, default sound")
    func tagAndGroup() throws {
        let value = try notification(["message": "test", "data": ["tag": "test_tag", "group": "test_group"]])
        #expect(
            value.body == "test" && value.id == "test_tag" && value.thread == "test_group" && value.sound == .default)
        #expect(value.title == nil)
    }

    @Test("H-NOT-1: with_titles.json → title and subtitle; no tag → a new id; url, actions and image kept")
    func titlesAndKept() throws {
        let value = try notification([
            "message": "test", "title": "test_title",
            "data": [
                "subtitle": "test_subtitle", "url": "/lovelace/0", "image": "/media/local/x.jpg",
                "actions": [["action": "OPEN_DOOR", "title": "Open"]],
            ],
        ])
        #expect(value.title == "test_title" && value.subtitle == "test_subtitle" && value.id == "generated")
        #expect(value.url == "/lovelace/0" && value.image == "/media/local/x.jpg")
        #expect(value.actions == [["action": "OPEN_DOOR", "title": "Open"]])
    }

    @Test("H-NOT-1: sound_none.json → no sound")
    func soundNone() throws {
        #expect(try notification(["message": "test", "data": ["push": ["sound": "none"]]]).sound == .none)
        #expect(try notification(["message": "test", "data": ["push": ["sound": "bell.caf"]]]).sound == .default)
    }

    @Test("H-NOT-1: two events with tag door → one notification with the newer body")
    func sameTagReplaces() throws {
        var delivered = DeliveredNotifications()
        delivered.apply(try #require(read(["message": "open", "data": ["tag": "door"]])))
        delivered.apply(try #require(read(["message": "closed", "data": ["tag": "door"]])))
        delivered.apply(try #require(read(["message": "other"])))
        #expect(delivered.shown.map(\.body) == ["closed", "other"])
    }

    @Test(
        "H-NOT-2: command_clear_notification_tag.json, command_clear_badge.json and the refresh commands are never shown; their title is ignored"
    )
    func commands() throws {
        let clear = read([
            "title": "extra excluded title", "message": "clear_notification", "data": ["tag": "test_tag"],
        ])
        #expect(clear == .command(.clearNotification(tag: "test_tag")))
        #expect(read(["message": "clear_badge"]) == .command(.clearBadge))
        #expect(read(["message": "request_location_updates"]) == .command(.requestLocationUpdate))
        #expect(read(["message": "update_widgets"]) == .command(.updateWidgets))
        #expect(read(["message": "update_complications"]) == .command(.updateComplications))
        var delivered = DeliveredNotifications()
        delivered.apply(try #require(read(["message": "x", "data": ["tag": "test_tag"]])))
        delivered.apply(try #require(read(["message": "y", "data": ["tag": "keep"]])))
        #expect(delivered.badge == 2)
        #expect(delivered.apply(try #require(clear)) == nil)
        #expect(delivered.shown.map(\.id) == ["keep"])
        #expect(delivered.apply(.command(.clearBadge)) == nil)
        #expect(delivered.badge == 0)
        // The commands not about what is shown come back for the caller to carry out, and change nothing shown.
        for command in [NotificationCommand.requestLocationUpdate, .updateWidgets, .updateComplications] {
            #expect(delivered.apply(.command(command)) == command)
        }
        #expect(delivered.shown.map(\.id) == ["keep"] && delivered.badge == 0)
        #expect(read(["title": "no message"]) == nil)
    }

    @Test(
        "H-NOT-4: a remote push with a local push's tag within 60 s is dropped, after 60 s shown; untagged: same message, title and data"
    )
    func remoteRepeatDropped() {
        let at = Date(timeIntervalSince1970: 1_796_800_000)
        var repeats = PushRepeats()
        repeats.receivedLocally(["message": "door open", "data": ["tag": "door"]], at: at)
        // HA's fallback after a late confirm: the same push with the push token and registration info, 12 s later.
        let fallback: JSONValue = [
            "message": "door open", "data": ["tag": "door"], "push_token": "t", "registration_info": ["app_id": "a"],
        ]
        #expect(!repeats.showsRemote(fallback, at: at.addingTimeInterval(12)))
        #expect(
            !repeats.showsRemote(["message": "other text", "data": ["tag": "door"]], at: at.addingTimeInterval(59)))
        #expect(repeats.showsRemote(["message": "window", "data": ["tag": "window"]], at: at.addingTimeInterval(12)))
        #expect(repeats.showsRemote(fallback, at: at.addingTimeInterval(61)))
        // Without a tag: the same message, title and data are the same push; another title is another push.
        var untagged = PushRepeats()
        untagged.receivedLocally(["message": "hi", "title": "CI", "data": ["x": 1]], at: at)
        #expect(!untagged.showsRemote(["message": "hi", "title": "CI", "data": ["x": 1], "push_token": "t"], at: at))
        #expect(untagged.showsRemote(["message": "hi", "title": "Other", "data": ["x": 1]], at: at))
        #expect(untagged.showsRemote(["message": "hi", "title": "CI", "data": ["x": 2]], at: at))
    }
}
