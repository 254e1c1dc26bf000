import CertainCore
import Testing

@Suite struct TextsTests {
    @Test("C-TEXT-1: both catalogs have the same number of lines, with the same key on line n")
    func catalogsAreLineAligned() {
        #expect(Texts.lineCount(of: .german) == Texts.lineCount(of: .english))
        let german = Texts.lines(of: .german)
        let english = Texts.lines(of: .english)
        #expect(german.count == english.count)
        for (de, en) in zip(german, english) {
            #expect(de.line == en.line, "line \(de.line): \(de.key) / \(en.key)")
            #expect(de.key == en.key, "line \(de.line): \(de.key) / \(en.key)")
        }
        #expect(Set(german.map(\.key)).count == german.count, "a key appears twice")
    }

    @Test("C-TEXT-2: every key the core uses, each notice and error code included, is in both, not empty")
    func everyUsedKeyIsTranslated() {
        for language in Language.allCases {
            let lines = Dictionary(
                Texts.lines(of: language).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
            for key in Texts.usedKeys {
                #expect(lines[key]?.isEmpty == false, "\(language): \(key) missing or empty")
            }
            // No catalog line the core does not use (an extra key is a translation nobody sees).
            for key in lines.keys { #expect(Texts.usedKeys.contains(key), "\(language): unused key \(key)") }
        }
        #expect(ServerErrorCode.allCases.count == 12)
    }

    @Test("C-TEXT-3: a device language that is neither German nor English gets German")
    func fallbackIsGerman() {
        #expect(Language.resolve(preferred: ["fr-FR", "it"]) == .german)
        #expect(Language.resolve(preferred: []) == .german)
        #expect(Language.resolve(preferred: ["en-GB"]) == .english)
        #expect(Language.resolve(preferred: ["fr", "en-US", "de"]) == .english)
        #expect(Language.resolve(preferred: ["de-AT"]) == .german)
        #expect(Language.resolve(preferred: ["de-AT", "en"]) == .german, "a German region tag is German, first")
        #expect(Language.resolve(preferred: ["de_CH", "en"]) == .german)
        #expect(Texts(.german)["tab.transactions"] == "Buchungen")
        #expect(Texts(.english)["tab.transactions"] == "Transactions")
    }
}
