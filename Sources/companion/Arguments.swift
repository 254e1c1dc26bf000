import Foundation

/// The command line after the command name: positionals, `--flag`s and `--option value`s.
///
/// Small and hand-written on purpose: the client has a dozen commands and no outside package may
/// be fetched. Unknown options are errors, so a typo never silently changes behaviour.
struct Arguments {
    var positionals: [String] = []
    var flags: Set<String> = []
    var options: [String: [String]] = [:]

    /// Parses `words`, accepting `flagNames` without a value and `optionNames` with one
    /// (`--name value` or `--name=value`; options may repeat).
    init(_ words: [String], flags flagNames: Set<String>, options optionNames: Set<String>) throws(UsageError) {
        var index = 0
        var onlyPositionals = false
        while index < words.count {
            let word = words[index]
            index += 1
            if onlyPositionals || !word.hasPrefix("--") || word == "-" {
                positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flagNames.contains(name), inlineValue == nil {
                flags.insert(name)
            } else if optionNames.contains(name) {
                if let inlineValue {
                    options[name, default: []].append(inlineValue)
                } else {
                    guard index < words.count else { throw UsageError("--\(name) needs a value") }
                    options[name, default: []].append(words[index])
                    index += 1
                }
            } else {
                throw UsageError("unknown option --\(name)")
            }
        }
    }

    /// The last value given for option `name`.
    func option(_ name: String) -> String? { options[name]?.last }

    /// Whether `--name` was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The positional at `index`, or a usage error naming what is missing.
    func positional(_ index: Int, _ what: String) throws(UsageError) -> String {
        guard positionals.indices.contains(index) else { throw UsageError("missing \(what)") }
        return positionals[index]
    }

    /// Fails when more positionals were given than `count`.
    func expectAtMost(_ count: Int) throws(UsageError) {
        if positionals.count > count { throw UsageError("unexpected argument \(positionals[count])") }
    }
}

/// A mistake in how the command was called; exit code 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// A failure while running a command; exit code 1, with a sentence a person can act on.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
