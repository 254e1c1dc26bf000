import CompanionCore

/// Turns values into JavaScript source text that is safe to splice into an injected script.
///
/// Rule: data goes into a script only as a JSON literal, with `/` escaped (so `</script>` cannot close a
/// script element) and U+2028/U+2029 escaped (they end a line in older JavaScript), so a value holding
/// quotes, backslashes or those characters still parses and arrives intact.
public enum JavaScriptLiteral {
    /// `value` as a JavaScript expression.
    public static func literal(_ value: JSONValue) -> String {
        escaped(value.jsonString())
    }

    /// `text` as a JavaScript string literal.
    public static func string(_ text: String) -> String { literal(.string(text)) }

    private static func escaped(_ json: String) -> String {
        var output = ""
        output.reserveCapacity(json.utf8.count)
        for scalar in json.unicodeScalars {
            switch scalar {
            case "/": output += "\\/"
            case "\u{2028}": output += "\\u2028"
            case "\u{2029}": output += "\\u2029"
            case "<": output += "\\u003c"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}
