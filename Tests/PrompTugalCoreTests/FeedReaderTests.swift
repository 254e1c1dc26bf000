import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

@testable import PrompTugalCore

/// The news feed reader: RSS 2.0 and Atom with Foundation's XMLParser (P-TEAM-7 for what is not a feed).
struct FeedReaderTests {
    @Test("RSS 2.0: the channel's title; each item's title, link, pubDate and guid")
    func rss() throws {
        let xml = """
            <?xml version="1.0" encoding="utf-8"?>
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>PrompTugal</title>
            <link>https://promptugal.news/</link>
            <item><title>First &amp; best</title><link>https://promptugal.news/s/1.html</link>
              <pubDate>Tue, 10 Nov 2026 09:00:00 +0000</pubDate><guid>s-1</guid></item>
            <item><title><![CDATA[Second <b>story</b>]]></title><link>/s/2.html</link><dc:date>2026-11-10T10:00:00Z</dc:date></item>
            <item><title>Undated</title><pubDate>sometime</pubDate></item>
            </channel></rss>
            """
        let feed = try FeedReader.read(Data(xml.utf8))
        #expect(feed.format == .rss && feed.title == "PrompTugal")
        #expect(feed.items.map(\.title) == ["First & best", "Second <b>story</b>", "Undated"])
        #expect(feed.items.map(\.link) == ["https://promptugal.news/s/1.html", "/s/2.html", nil])
        #expect(feed.items[0].date == (try Timestamp.parse("2026-11-10T09:00:00Z")) && feed.items[0].id == "s-1")
        #expect(feed.items[1].date == (try Timestamp.parse("2026-11-10T10:00:00Z")))
        #expect(feed.items[2].date == nil)
    }

    @Test("Atom: the feed's title; each entry's title, alternate link, updated or published, id")
    func atom() throws {
        let xml = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>PrompTugal news</title>
            <entry><title>One</title><link rel="self" href="/self/1"/><link href="https://promptugal.news/a/1"/>
              <id>urn:1</id><published>2026-11-09T08:00:00Z</published><updated>2026-11-10T08:00:00+01:00</updated></entry>
            <entry><title>Two</title><link rel="related" href="/r/2"/><published>2026-11-09T09:00:00Z</published></entry>
            </feed>
            """
        let feed = try FeedReader.read(Data(xml.utf8))
        #expect(feed.format == .atom && feed.title == "PrompTugal news")
        #expect(
            feed.items.map(\.title) == ["One", "Two"]
                && feed.items.map(\.link) == ["https://promptugal.news/a/1", "/r/2"])
        #expect(feed.items[0].date == (try Timestamp.parse("2026-11-10T07:00:00Z")) && feed.items[0].id == "urn:1")
        #expect(feed.items[1].date == (try Timestamp.parse("2026-11-09T09:00:00Z")))
    }

    @Test(
        "P-TEAM-7: a body that is not XML, or XML that is not a feed, is an error",
        arguments: ["", "not xml at all", "<rss><channel>", "{\"items\": []}", "<html><title>x</title></html>"])
    func notAFeed(_ body: String) {
        #expect(throws: FeedError.self) { try FeedReader.read(Data(body.utf8)) }
    }

    @Test("P-TEAM-7: bytes that are not UTF-8 are an error, not a feed of garbage")
    func notText() throws {
        #expect(throws: FeedError.notText) { try FeedReader.read(Data([0xFF, 0xFE, 0x00, 0x3C, 0xC3, 0x28])) }
        // FuzzTeamData's crash: an RSS body with invalid UTF-8 in a title, on which XMLParser traps on Linux.
        let crash = try #require(
            Data(
                base64Encoded:
                    "PD94bWwgdmVyc2lvbj0iMS4wIj8+PHJzcyB2Z3JzaW9uPSIyLjAiPjxjaGFubmVsPjx0aXRsZT5UxNCLn3RsZT48aXRlbT48dGl0bGU+QTwvdGl0bGU+PGxpbms+L2E8L2xpbms+PHB1YkRhdGU+VHVlLCAxMCBOb3YgMjAyNiAwOTowMDowMCArMDAwMDwvcHViRGF0ZT48L2l0ZW0+PNGbaGFubmVsPjwvcnNzPg=="
            ))
        #expect(throws: FeedError.notText) { try FeedReader.read(crash) }
    }

    @Test("P-TEAM-7: XML that is not a feed is said with its root's name, cut after 40 characters")
    func longRootIsCut() throws {
        let forty = String(repeating: "r", count: 40)
        #expect(FeedError.notAFeed(root: forty).description.contains("(its root is <\(forty)>)"))
        #expect(throws: FeedError.notAFeed(root: forty + "s")) { try FeedReader.read(Data("<\(forty)s/>".utf8)) }
        #expect(FeedError.notAFeed(root: forty + "s").description.contains("(its root is <\(forty)…>)"))
    }

    @Test("P-TEAM-7: an external entity in a feed is never resolved: its file's words reach no title")
    func externalEntityNotResolved() throws {
        let temporary = try TemporaryFolder(prefix: "pt-xxe")
        let file = temporary.url.appendingPathComponent("secret.txt")
        try Data("entity-was-read".utf8).write(to: file)
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE rss [<!ENTITY x SYSTEM "\(file.absoluteString)">]>
            <rss version="2.0"><channel><title>T &x;</title><item><title>I &x;</title></item></channel></rss>
            """
        let feed = try? FeedReader.read(Data(xml.utf8))
        #expect(feed.map { "\($0)" }?.contains("entity-was-read") != true)
    }
}
