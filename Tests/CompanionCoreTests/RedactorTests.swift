import CompanionCore
import Foundation
import Testing

@Suite struct RedactorTests {
    let redactor = Redactor()

    @Test(arguments: [
        ("Authorization", true), ("authorization", true), ("Proxy-Authorization", true), ("Cookie", true),
        ("Set-Cookie", true), ("X-Certain-Token", true), ("X-Session-Token", true), ("X-Api-Key", true),
        ("X-Client-Secret", true), ("Idempotency-Key", false), ("idempotency-key", false), ("Content-Type", false),
        ("Accept", false), ("X-Omnigent-Client", false), ("X-Request-Id", false),
    ])
    func headerNames(_ name: String, _ secret: Bool) {
        #expect(redactor.isSecretHeader(name) == secret)
    }

    @Test(arguments: [
        ("password", true), ("new_password", true), ("refresh_token", true), ("access_token", true),
        ("api_key", true), ("apiKey", true), ("readKey", true), ("client_secret", true), ("passphrase", true),
        ("code_verifier", true), ("totp", true), ("otp", true), ("keys", false), ("code", false), ("error", false),
        ("idempotency_key", false), ("Idempotency-Key", false), ("username", false), ("status", false),
        ("monkey", false), ("id", false),
    ])
    func fieldNames(_ name: String, _ secret: Bool) {
        #expect(redactor.isSecretField(name) == secret)
    }

    /// Configured fragments and suffixes are normalized as the names they are matched against: `_` and `-`
    /// dropped, letters folded, so one spelling covers `session_ticket`, `sessionTicket` and `SESSION-TICKET`.
    @Test func configuredFragmentsAndSuffixesMatchInAnySpelling() {
        let configured = Redactor(fieldFragments: ["session_ticket"], fieldSuffixes: ["refresh-handle"])
        for name in ["session_ticket", "sessionTicket", "SESSION-TICKET", "my_session_ticket_2", "refreshHandle"] {
            #expect(configured.isSecretField(name), "\(name)")
        }
        #expect(configured.isSecretField("x_refresh_handle") && !configured.isSecretField("refresh_handle_id"))
        #expect(!configured.isSecretField("session") && !configured.isSecretField("ticket"))
    }

    @Test func headersKeepNamesAndMaskValues() {
        let headers = redactor.redact(headers: [
            "Authorization": "Bearer abc", "X-Certain-Token": "ctk_1", "Idempotency-Key": "k-1",
            "Accept": "application/json",
        ])
        #expect(
            headers == [
                "Authorization": Redactor.mask, "X-Certain-Token": Redactor.mask, "Idempotency-Key": "k-1",
                "Accept": "application/json",
            ])
    }

    @Test func urlQueryAndUserInfo() throws {
        let url = try #require(URL(string: "https://ann:pw123456@host.example/v1?readKey=r1&limit=5&code=ok#frag"))
        let text = redactor.redact(url: url)
        #expect(!text.contains("pw123456"))
        #expect(!text.contains("ann"))
        #expect(!text.contains("r1"))
        #expect(!text.contains("frag"))
        #expect(text.contains("limit=5"))
        #expect(text.contains("code=ok"))
    }

    @Test func jsonFieldsAtAnyDepth() throws {
        let json =
            #"{"user":{"password":"p","keys":["a"],"api_key":"k"},"items":[{"refresh_token":"t"}],"#
            + #""code":"c","error":"e","token":null}"#
        let body = Data(json.utf8)
        let text = try #require(redactor.redact(json: body))
        #expect(
            text
                == #"{"code":"c","error":"e","items":[{"refresh_token":"<redacted>"}],"token":null,"#
                + #""user":{"api_key":"<redacted>","keys":["a"],"password":"<redacted>"}}"#)
        #expect(redactor.redact(json: Data("not json".utf8)) == nil)
        #expect(redactor.redact(json: Data()) == nil)
    }

    @Test func shapes() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
        #expect(redactor.scrubShapes("Authorization: Bearer abc.def") == "Authorization: Bearer <redacted>")
        #expect(redactor.scrubShapes("Basic dXNlcjpwYXNz, next") == "Basic <redacted>, next")
        #expect(redactor.scrubShapes("token \(jwt) end") == "token <redacted> end")
        #expect(redactor.scrubShapes("eyJ is not a token") == "eyJ is not a token")
        #expect(redactor.scrubShapes("Bearer  Bearer secretvalue") == "Bearer  Bearer <redacted>")
    }

    @Test func namedValuesInFreeText() {
        #expect(redactor.scrubShapes("?api_key=abc&limit=5") == "?api_key=<redacted>&limit=5")
        #expect(
            redactor.scrubShapes(#"{"password": "p w", "code": "x"}"#) == #"{"password": "<redacted>", "code": "x"}"#)
        #expect(redactor.scrubShapes(#"{"otp":123456,"n":1}"#) == #"{"otp":<redacted>,"n":1}"#)
        #expect(redactor.scrubShapes(#"{"token":null}"#) == #"{"token":null}"#)
        #expect(redactor.scrubShapes(#"{"password":"a\"b","x":1}"#) == #"{"password":"<redacted>","x":1}"#)
        #expect(redactor.scrubShapes("keys=a&code=b&error=c") == "keys=a&code=b&error=c")
        // A value of one character is a value; an empty one has nothing to hide and stays empty.
        #expect(redactor.scrubShapes("token=x&n=1 password=y") == "token=<redacted>&n=1 password=<redacted>")
        #expect(redactor.scrubShapes("token=&n=1") == "token=&n=1")
        #expect(redactor.scrubShapes(#"{"password":"","token":"t"}"#) == #"{"password":"","token":"<redacted>"}"#)
        // A text cut right after a secret name's colon (an echoed body clipped) is left as it is, never a crash.
        for cut in [#"{"password":"#, #"{"password": "#, #"{"password":  "#, #"{"password""#] {
            #expect(redactor.scrubShapes(cut) == cut)
        }
    }

    @Test func scrubbingIsIdempotent() {
        let inputs = [
            "Bearer abc", "?token=x&y=1", #"{"password":"p"}"#, "plain text", "Basic <redacted>",
        ]
        for input in inputs {
            let once = redactor.scrubShapes(input)
            #expect(redactor.scrubShapes(once) == once)
        }
    }

    /// Rule (Redactor): any `X-…-Token`, `X-…-Key` or `X-…-Secret` header is secret by its name alone, also under a
    /// redactor whose field rules would not catch the name.
    @Test func xTokenKeyAndSecretHeadersAreSecretByNameAlone() {
        let headerRulesOnly = Redactor(fieldFragments: [], fieldSuffixes: [])
        for name in ["X-Api-Token", "X-Api-Key", "X-Client-Secret"] {
            #expect(headerRulesOnly.isSecretHeader(name), "\(name)")
        }
        #expect(!headerRulesOnly.isSecretHeader("X-Request-Id"))
    }

    /// Rule (Redactor, by value and by name in free text): a secret at the very start of a text is found, and a
    /// quoted string that ends a message is read without running past the text's end.
    @Test func bothEndsOfATextAreScanned() {
        #expect(Redactor.text("s3cret-token then more", contains: "s3cret-token"))
        #expect(!Redactor.text("s3cret", contains: "s3cret-token"))
        #expect(redactor.scrubShapes(#"the server said "no""#) == #"the server said "no""#)
        #expect(redactor.scrubShapes(#"{"password": "p"} and "bye"  "#) == #"{"password": "<redacted>"} and "bye"  "#)
    }
}
