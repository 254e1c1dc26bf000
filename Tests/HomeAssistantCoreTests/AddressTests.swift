import CompanionCore
import Foundation
import HomeAssistantCore
import Testing

/// Addresses typed and discovered (H-ADDR-1, H-ADDR-2, H-ADDR-5).
@Suite struct AddressTests {
    @Test("H-ADDR-1: path, query, fragment and a trailing /api or /api/websocket are dropped (iOS and HAKit vectors)")
    func reducedToRoot() throws {
        let policy = TransportPolicy.httpsOnly
        #expect(
            try HomeAssistantAddress.parse(
                "https://homeassistant.local:8123/lovelace/0?foo=bar#section", policy: policy
            )
            .description == "https://homeassistant.local:8123")
        #expect(
            try HomeAssistantAddress.parse("https://ha.example.com/api/websocket/", policy: policy).description
                == "https://ha.example.com")
        #expect(
            try HomeAssistantAddress.parse("https://ha.example.com/api", policy: policy).description
                == "https://ha.example.com")
        #expect(
            try HomeAssistantAddress.parse("https://ha.example.com:8123/", policy: policy).description
                == "https://ha.example.com:8123")
    }

    @Test("H-ADDR-2: https when no scheme is given, no port guessed, http only for loopback where allowed")
    func typedInput() throws {
        #expect(
            try HomeAssistantAddress.parse(" ha.example.com ", policy: .httpsOnly).description
                == "https://ha.example.com")
        #expect(
            try HomeAssistantAddress.parse("homeassistant.local", policy: .httpsOnly).description
                == "https://homeassistant.local")
        #expect(
            try HomeAssistantAddress.parse("127.0.0.1:18123", policy: .allowingInsecureLoopback).description
                == "http://127.0.0.1:18123")
        #expect(throws: ServerAddressError.self) {
            try HomeAssistantAddress.parse("http://nas.lan:8123", policy: .httpsOnly)
        }
    }

    @Test("H-ADDR-5: a TXT record names internal_url, else external_url, else base_url; none at all is dropped")
    func discovered() throws {
        let flat = try #require(
            DiscoveredServer(txt: [
                "uuid": "u1", "version": "2025.4.4", "internal_url": "https://ha.lan:8123", "external_url": "",
                "location_name": "Flat",
            ]))
        #expect(
            flat.name == "Flat" && flat.url == "https://ha.lan:8123" && flat.uuid == "u1" && flat.version == "2025.4.4")
        #expect(DiscoveredServer(txt: ["uuid": "u2", "internal_url": "", "external_url": "", "base_url": ""]) == nil)
        let away = try #require(
            DiscoveredServer(txt: ["internal_url": "", "external_url": "https://ha.example", "location_name": ""]))
        #expect(away.url == "https://ha.example" && away.name == "Home")
        #expect(DiscoveredServer(txt: ["base_url": "http://ha-base.lan:8123"])?.url == "http://ha-base.lan:8123")
        let both = DiscoveredServer(txt: [
            "internal_url": "https://ha.lan:8123", "external_url": "https://ha.example",
            "base_url": "http://ha-base.lan",
        ])
        #expect(both?.url == "https://ha.lan:8123")
        #expect(
            DiscoveredServer(txt: ["external_url": "https://ha.example", "base_url": "http://ha-base.lan"])?.url
                == "https://ha.example")
    }
}
