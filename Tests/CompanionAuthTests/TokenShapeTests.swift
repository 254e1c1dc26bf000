import CompanionAuth
import Testing

/// The forms a token must have before the kit keeps it or sends it.
struct TokenShapeTests {
    @Test(
        "A JWT is three non-empty base64url parts; anything else is refused",
        arguments: [
            ("aaa.bbb.ccc", true), ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln-_0", true),
            ("aaa.bbb.ccc; Domain=evil.example", false), ("aaa.bbb", false), ("aaa..ccc", false), ("a.b.c.d", false),
            ("not-a-jwt", false), ("", false), ("aaa.bbb.cc=", false), ("aaa.bbb.ccc\n", false),
            (" aaa.bbb.ccc", false),
        ])
    func jwt(_ token: String, _ accepted: Bool) { #expect(TokenShape.jwt.accepts(token) == accepted) }

    @Test(
        "An opaque token is non-empty visible ASCII without ; or ,",
        arguments: [
            ("cat_0123", true), ("a/b+c=", true), ("", false), ("a b", false), ("a;b", false), ("a,b", false),
            ("a\u{7F}", false), ("café", false),
        ])
    func opaque(_ token: String, _ accepted: Bool) { #expect(TokenShape.opaque.accepts(token) == accepted) }
}
