import CompanionCore
import Foundation
import Testing

@testable import PrompTugalCore

/// Tests written for the mutants `scripts/mutate PrompTugalCore --seed 3805` and `--seed 7919` left alive
/// (docs/promptugal.md, docs/reliability.md).
struct MutationSurvivorTests {
    @Test("Ages are said in the largest unit that fits, at each unit's edge")
    func ageEdges() {
        #expect(TeamData.describe(age: 59) == "59 s" && TeamData.describe(age: 60) == "1 min")
        #expect(TeamData.describe(age: 3_599) == "59 min" && TeamData.describe(age: 3_600) == "1 h")
        #expect(TeamData.describe(age: 86_399) == "23 h" && TeamData.describe(age: 86_400) == "1 d")
        #expect(TeamData.describe(age: 2 * 86_400 + 5) == "2 d")
    }

    @Test("P-TEAM-8: any host name or IPv4 address in a site's words is hidden; other words and spacing stay")
    func hostNames() throws {
        let sentence = ReadSentence(sites: TeamDataBases(both: try #require(URL(string: "https://team.example"))))
        #expect(sentence.hide("via 10.0.0.7:8080 and cdn.other-host.net") == "via the site and the site")
        #expect(sentence.hide("(mirror.example.org), agenda.json  v1.2") == "(the site), agenda.json  v1.2")
        #expect(ReadSentence.isHostName("a-b.example") && !ReadSentence.isHostName("a_b.example"))
        // Strings read as words, never dialled: a dotted quad is a host to hide, three numbers are not.
        #expect(!ReadSentence.isHostName("1.2.3") && ReadSentence.isHostName("1.2.3.4"))
    }

    @Test("Issue 38 item 2: of two equally long lists found by evidence, the member first by name wins, every run")
    func listTieIsDeterministic() throws {
        func row(_ id: Int) -> JSONValue { .object(["id": .integer(Int64(id))]) }
        for _ in 0..<20 {
            let members: [String: JSONValue] = [
                "zeta": .array([row(1), row(2)]), "alpha": .array([row(3), row(4)]), "mid": .array([row(5), row(6)]),
            ]
            let found = try #require(TeamFields.list(.object(members), []))
            #expect(found == [row(3), row(4)])
        }
        let longer: [String: JSONValue] = ["alpha": .array([row(1)]), "zeta": .array([row(2), row(3)])]
        #expect(TeamFields.list(.object(longer), []) == [row(2), row(3)])
    }

    @Test("P-SHELL-3: the sidebar's sections are titled Today, Event, News, Team and Settings, in that order")
    func sectionTitles() {
        #expect(Destination.Section.allCases.map(\.title) == ["Today", "Event", "News", "Team", "Settings"])
        #expect(Destination.Section.allCases.sorted() == Destination.Section.allCases)
    }

    @Test("Issue 38 item 2: of two equally long texts found by evidence, the member first by name wins, every run")
    func textTieIsDeterministic() throws {
        let item = try #require(JSONValue(data: Data(#"{"zeta": "bbbb", "alpha": "aaaa", "id": "x"}"#.utf8)))
        #expect(TeamFields.text(item, []) == "aaaa")
    }

    @Test("P-TEAM-8: hosts of one length are hidden in name order, every run (seed 7919's m-c63518322a)")
    func sameLengthHostsInNameOrder() throws {
        // Two source hosts that overlap in a word which is not itself a host name: the first by name is hidden.
        let overlapping = ReadSentence(
            sites: TeamDataBases(
                team: try #require(URL(string: "https://bc.d")), news: try #require(URL(string: "https://a.bc"))))
        #expect(overlapping.hide("see a.bc.d/x") == "see the site.d/x")
        // The hosts come from a set, whose order changes from run to run: many pairs, each in the same order.
        for index in 0..<12 {
            let team = try #require(URL(string: "https://aaaa\(index).example"))
            let news = try #require(URL(string: "https://bbbb\(index).example"))
            let hosts = ReadSentence(sites: TeamDataBases(team: team, news: news)).hosts
            #expect(hosts == ["web-summit.sgit.ai", "promptugal.news", "aaaa\(index).example", "bbbb\(index).example"])
        }
    }

    @Test("P-TEAM-4: the team feed kinds compare in declaration order, and no kind comes before itself")
    func feedKindsOrder() {
        let kinds = TeamFeedKind.allCases
        #expect(kinds == [.meetings, .wakes, .reports, .pulse, .log])
        for (index, kind) in kinds.enumerated() {
            let same = kinds[index]  // seed 7919's m-dd39132b00: a kind came before itself
            #expect(!(kind < same) && kind <= same && kind >= same, "\(kind)")
            for later in kinds[(index + 1)...] { #expect(kind < later && !(later < kind), "\(kind) \(later)") }
        }
        #expect([TeamFeedKind.log, .pulse, .meetings, .reports, .wakes].sorted() == kinds)
    }

    @Test("Issue 38 item 8: a count's name is read without a trailing count, unless count is the whole name")
    func countNames() {
        #expect(TeamFields.normalized("onlyYouCount") == "onlyyou" && TeamFields.normalized("only_you") == "onlyyou")
        #expect(TeamFields.normalized("Count") == "count" && TeamFields.normalized("people_count") == "people")
    }
}
