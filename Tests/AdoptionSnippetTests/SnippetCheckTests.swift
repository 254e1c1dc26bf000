import Foundation
import Testing

/// The README's "Use it in an app" and each app core's DocC article show only code that compiles: every block
/// marked `<!-- snippet: NAME -->` has its lines, in order, in the region `// snippet: NAME` … `// end snippet` of
/// this target's sources (compiled here; the SwiftUI regions on Apple platforms only). To change a snippet, change
/// the region and the documents together.
@Suite("Adoption snippets match the compiled code")
struct SnippetCheckTests {
    /// The repository root (this file is Tests/AdoptionSnippetTests/SnippetCheckTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The documents with snippets, and the snippets each must show.
    static let documents: [(path: String, snippets: [String])] = [
        ("README.md", ["environment", "certain", "certain-view"]),
        (
            "Sources/Apps/Certain/CertainCore.docc/UsingCertainCoreInAnApp.md",
            ["environment", "certain", "certain-view"]
        ),
        (
            "Sources/Apps/Omnigent/OmnigentCore.docc/UsingOmnigentCoreInAnApp.md",
            ["environment", "omnigent", "omnigent-view"]
        ),
        (
            "Sources/Apps/Mainworthy/MainworthyCore.docc/UsingMainworthyCoreInAnApp.md",
            ["environment", "mainworthy", "mainworthy-view"]
        ),
        (
            "Sources/Apps/PrompTugal/PrompTugalCore.docc/UsingPrompTugalCoreInAnApp.md",
            ["environment", "promptugal", "promptugal-view"]
        ),
    ]

    /// A block's or a region's lines, trimmed, without blank lines.
    static func lines(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The Swift blocks of a Markdown document by snippet name: the fenced block after `<!-- snippet: NAME -->`.
    static func blocks(in markdown: String) -> [String: [String]] {
        var blocks: [String: [String]] = [:]
        var name: String?
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let open = current {
                if trimmed == "```" {
                    blocks[name ?? ""] = lines(open.joined(separator: "\n"))
                    (name, current) = (nil, nil)
                } else {
                    current = open + [String(line)]
                }
            } else if trimmed.hasPrefix("<!-- snippet: "), trimmed.hasSuffix(" -->") {
                name = String(trimmed.dropFirst("<!-- snippet: ".count).dropLast(" -->".count))
            } else if name != nil, trimmed == "```swift" {
                current = []
            }
        }
        return blocks
    }

    /// The regions of this target's sources by snippet name.
    static func regions() throws -> [String: [String]] {
        let folder = root.appendingPathComponent("Tests/AdoptionSnippetTests")
        var regions: [String: [String]] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            var name: String?
            let source = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in lines(source) {
                if line.hasPrefix("// snippet: ") {
                    name = String(line.dropFirst("// snippet: ".count))
                } else if line == "// end snippet" {
                    name = nil
                } else if let name {
                    regions[name, default: []].append(line)
                }
            }
        }
        return regions
    }

    /// Whether `block`'s lines all appear in `region`, in the same order.
    static func isShown(_ block: [String], in region: [String]) -> Bool {
        var remaining = region[...]
        for line in block {
            guard let index = remaining.firstIndex(of: line) else { return false }
            remaining = remaining[(index + 1)...]
        }
        return true
    }

    @Test("Each document shows its snippets, and each snippet's lines are compiled code, in order")
    func documentsShowCompiledCode() throws {
        let regions = try Self.regions()
        for document in Self.documents {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document.path), encoding: .utf8)
            let blocks = Self.blocks(in: text)
            #expect(blocks.keys.sorted() == document.snippets.sorted(), "\(document.path)")
            for name in document.snippets {
                let block = try #require(blocks[name], "\(document.path) has no snippet \(name)")
                let region = try #require(regions[name], "no region `// snippet: \(name)` in AdoptionSnippetTests")
                #expect(block.count >= 3, "\(document.path): snippet \(name) is empty")
                let missing = block.filter { !region.contains($0) }
                #expect(
                    Self.isShown(block, in: region),
                    "\(document.path): snippet \(name) is not the compiled code; lines not in it: \(missing)")
            }
        }
    }

    @Test("The check itself: a changed line, or lines out of order, are not shown")
    func checkRefusesChangedCode() {
        let region = ["let a = 1", "#if os(Linux)", "let b = 2", "#endif", "let c = 3"]
        #expect(Self.isShown(["let a = 1", "let c = 3"], in: region))
        #expect(!Self.isShown(["let a = 2", "let c = 3"], in: region))
        #expect(!Self.isShown(["let c = 3", "let a = 1"], in: region))
        let markdown = "<!-- snippet: x -->\n```swift\nlet a = 1\n\n  let c = 3\n```\n"
        #expect(Self.blocks(in: markdown) == ["x": ["let a = 1", "let c = 3"]])
    }
}
