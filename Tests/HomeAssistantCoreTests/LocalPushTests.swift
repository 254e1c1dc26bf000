import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// The local push channel over the live connection against the real Home Assistant (H-MOB-16, H-MOB-17), and a
/// remote push repeating a local one (H-NOT-4).
@Suite struct LocalPushTests {
    @Test(
        "H-MOB-16 H-MOB-17 H-NOT-4: an unknown webhook id refused; a local push while connected is presented, then confirmed; one confirmed after Home Assistant's 10 s → not_found → subscribed again; its remote repeat is dropped"
    )
    func localPushConfirmed() async throws {
        let home = try await LiveHome()
        try await home.startLive()
        let catcher = home.environment.client(
            for: try TestServers.url("HOMEASSISTANT_CONTROL_URL"), profile: HomeAssistantServer.profile)
        let app = MobileApp(server: home.server)
        let tag = String(UInt32.random(in: 0..<UInt32.max), radix: 16)
        let info = DeviceInfo(
            deviceID: "ci-local-\(tag)", appID: "io.companionkit.ci", appName: "CompanionKit CI", appVersion: "0.1.0",
            deviceName: "ci local \(tag)", manufacturer: "CompanionKit", model: "Linux CI", osName: "Linux",
            osVersion: "6", push: ("ci-push-token", try TestServers.value("HOMEASSISTANT_PUSH_URL")))
        let registration = try await app.register(info, config: try await home.server.config().value, encrypted: false)
        let webhookID = registration.webhookID
        // An id Home Assistant does not know: the channel is refused with its own words, no retry.
        do {
            try await home.connection.followLocalPush(webhookID: String(repeating: "0", count: 64)) { _ in false }
            Issue.record("an unknown webhook id was followed")
        } catch {
            guard case .server(let code, let message) = error else {
                Issue.record("not the server's refusal: \(error)")
                return
            }
            #expect(code == "not_found" && message == "Webhook ID not found", "\(code): \(message)")
        }
        let start = try await catcher.call(.get, "/pushes").json?["version"]?.intValue ?? 0
        let (subscriptions, subscribed) = AsyncStream<Void>.makeStream()
        let (pushes, received) = AsyncStream<LocalPush>.makeStream()
        let fallback = Locked<JSONValue?>(nil)
        let follow = Task {
            try await home.connection.followLocalPush(webhookID: webhookID, subscribed: { subscribed.yield() }) {
                push in
                received.yield(push)
                if push.payload["data"]?["tag"] == "late" {
                    // Presented late: only once Home Assistant gave up waiting for the confirm and sent it as a remote
                    // push (to the catcher).
                    fallback.withLock { $0 = nil }
                    var after = start
                    for _ in 0..<6 {
                        guard let reply = try? await catcher.call(.get, "/pushes?after=\(after)&wait_ms=10000").json
                        else { break }
                        after = reply["version"]?.intValue ?? after
                        let mine = (reply["items"]?.arrayValue ?? []).compactMap { $0["body"] }.first {
                            $0["registration_info"]?["webhook_id"]?.stringValue == webhookID
                                && $0["data"]?["tag"] == "late"
                        }
                        if let mine {
                            fallback.withLock { $0 = mine }
                            break
                        }
                    }
                }
                return push.payload["data"]?["tag"] != "last"
            }
        }
        defer { follow.cancel() }
        // One stream each, read one element at a time (never two readers at once), each read bounded.
        let nextSubscription = { (limit: Duration) async throws -> Bool in
            try await withDeadline(limit) { () async -> Bool? in
                for await _ in subscriptions { return true }
                return nil
            } == true
        }
        let nextPush = { () async throws -> LocalPush? in
            try await withDeadline(.seconds(20)) { () async -> LocalPush? in
                for await push in pushes { return push }
                return nil
            }
        }
        let slug = "ci_local_\(tag)"
        let notify: (String, String) async throws -> Void = { message, pushTag in
            // The subscription was sent before this read: answered in order, it is in place.
            _ = try await home.connection.read(["type": "get_config"])
            let sent = try await home.server.bundle.client.call(
                .post, "/api/services/notify/mobile_app_\(slug)",
                json: ["message": .string(message), "title": "CI", "data": ["tag": .string(pushTag)]])
            #expect(sent.status == 200, "notify answered \(sent.status)")
        }
        try #require(try await nextSubscription(.seconds(20)), "the channel was not asked for")
        try await notify("local push", "t2")
        let first = try #require(try await nextPush())
        guard case .show(let notification)? = first.message else {
            Issue.record("the local push is not a notification: \(first.payload)")
            return
        }
        #expect(notification.id == "t2" && notification.body == "local push" && notification.title == "CI")
        let confirmID = try #require(first.confirmID, "no hass_confirm_id")
        // A push confirmed only after Home Assistant's 10 s: its remote repeat reaches the catcher, the confirm is
        // answered not_found, and the channel is subscribed again at once.
        try await notify("late push", "late")
        let late = try #require(try await nextPush())
        #expect(late.payload["data"]?["tag"] == "late")
        try #require(try await nextSubscription(.seconds(60)), "not subscribed again")
        let remote = try #require(fallback.withLock { $0 }, "Home Assistant's remote repeat of the late push")
        var repeats = PushRepeats()
        let now = Date()
        repeats.receivedLocally(late.payload, at: now)
        #expect(!repeats.showsRemote(remote, at: now.addingTimeInterval(12)), "the remote repeat was shown")
        try await notify("last push", "last")
        let last = try #require(try await nextPush())
        #expect(last.payload["message"] == "last push")
        _ = try await withDeadline(.seconds(20)) { try await follow.value }
        let sent = home.sent
        let channels = sent.filter { $0["type"] == "mobile_app/push_notification_channel" }
        #expect(channels.count == 3 && channels.allSatisfy { $0["support_confirm"] == true }, "the refused one and two")
        let confirms = sent.filter { $0["type"] == "mobile_app/push_notification_confirm" }
        #expect(confirms.compactMap { $0["confirm_id"]?.stringValue }.first == confirmID)
        #expect(confirms.count == 3, "each push confirmed once: \(confirms.count)")
        let journal = String(decoding: home.environment.journal.exportJSONLines(), as: UTF8.self)
        #expect(journal.contains("a local push was not confirmed"), "the late confirm's not_found")
        await home.connection.stop()
    }
}
