import CompanionCore
import Foundation
import Testing

@testable import CompanionLinks

/// Recent servers (O-RECENT-*) and the offered-server check (O-PICK-3/4).
struct RecentServersTests {
    static func address(_ text: String) throws -> ServerAddress {
        try ServerAddress(parsing: text, policy: .allowingInsecureLoopback)
    }

    @Test("O-RECENT-1: at most 5, newest first; a 6th drops the oldest")
    func capacity() throws {
        var recents = RecentServers()
        for index in 1...6 { recents.recordSuccessfulLoad(of: try Self.address("https://s\(index).example.com")) }
        #expect(recents.servers.map(\.host) == (2...6).reversed().map { "s\($0).example.com" })
    }

    @Test("O-RECENT-2: the same server key moves to the front; the count is unchanged")
    func deduplicates() throws {
        var recents = RecentServers()
        recents.recordSuccessfulLoad(of: try Self.address("https://a.example.com"))
        recents.recordSuccessfulLoad(of: try Self.address("https://b.example.com"))
        recents.recordSuccessfulLoad(of: try Self.address("HTTPS://A.Example.com:443/"))
        #expect(recents.servers.map(\.serverKey) == ["https://a.example.com", "https://b.example.com"])
        recents.recordSuccessfulLoad(of: try Self.address("https://a.example.com/second"))
        #expect(recents.servers.count == 3)
    }

    @Test("O-RECENT-5: presets are never written, and a stored recent equal to a preset is hidden")
    func presets() throws {
        let preset = try Self.address("https://corp.example.com/omnigent")
        var recents = RecentServers([try Self.address("https://corp.example.com/omnigent/")])
        recents.recordSuccessfulLoad(of: preset, presets: [preset])
        recents.recordSuccessfulLoad(of: try Self.address("https://mine.example.com"), presets: [preset])
        #expect(recents.servers.count == 2)
        #expect(recents.displayed(hiding: [preset]).map(\.host) == ["mine.example.com"])
        // O-MDM-14: once withdrawn, the stored recent shows again; recents are untouched.
        #expect(recents.displayed(hiding: []).count == 2)
    }

    @Test("Stored entries are re-normalized on load: duplicates and overflow dropped, order kept")
    func restore() throws {
        let stored = try [
            "https://a.example.com", "https://A.example.com/", "https://b.example.com",
            "https://c.example.com", "https://d.example.com", "https://e.example.com",
            "https://f.example.com",
        ].map(Self.address)
        let recents = RecentServers(stored)
        #expect(recents.servers.map(\.host) == ["a", "b", "c", "d", "e"].map { "\($0).example.com" })
    }

    @Test("A stored list is read entry by entry: a LAN http:// server reads back, an unreadable entry is left out")
    func storedListReadsEntryByEntry() throws {
        let json = #"""
            {"servers": ["https://a.example.com", "http://studio.local:6767", "not a url", 42, null,
                         "ftp://b.example.com", "https://c.example.com/mount"]}
            """#
        let recents = try JSONDecoder().decode(RecentServers.self, from: Data(json.utf8))
        #expect(
            recents.servers.map(\.description)
                == ["https://a.example.com", "http://studio.local:6767", "https://c.example.com/mount"])
        let again = try JSONDecoder().decode(RecentServers.self, from: try JSONEncoder().encode(recents))
        #expect(again == recents)
    }

    @Test("O-MDM-13, O-PICK-3/4: presets listed first; switch only to an offered server")
    func offer() throws {
        let presets = try [Self.address("https://corp.example.com/omnigent"), Self.address("https://two.example.com")]
        var recents = RecentServers()
        recents.recordSuccessfulLoad(of: try Self.address("https://mine.example.com/mount"))
        recents.recordSuccessfulLoad(of: try Self.address("https://corp.example.com/omnigent"))  // hidden
        let offer = ServerOffer(presets: presets, recents: recents)
        #expect(
            offer.offered.map(\.description)
                == ["https://corp.example.com/omnigent", "https://two.example.com", "https://mine.example.com/mount"])
        // By server key, and by origin (which yields the stored entry with its mount).
        #expect(offer.entry(matching: "https://corp.example.com/omnigent/")?.path == "/omnigent")
        #expect(offer.entry(matching: "https://mine.example.com")?.description == "https://mine.example.com/mount")
        for refused in [
            "https://evil.example.com", "https://mine.example.com:8443", "http://two.example.com",
            "javascript:alert(1)", "", "https://user:pw@two.example.com",
        ] {
            #expect(offer.entry(matching: refused) == nil, "\(refused) must not be offered")
        }
        // O-PICK-4: a preset withdrawn since the picker opened is no longer offered.
        let withdrawn = ServerOffer(presets: [], recents: RecentServers())
        #expect(withdrawn.entry(matching: "https://two.example.com") == nil)
    }
}
