#if canImport(WebKit)
    import CompanionBridge
    import Testing
    import WebKit

    /// `WebKitBridgeAdapter.install`: what an app registered becomes a document-start user script in the main frame
    /// and a message handler under its name (Apple platforms only; the codec, origins and ops it forwards to are
    /// tested on Linux in CompanionBridgeTests). A message's conversion needs a loaded page in a running app: no
    /// job here shows it (docs/apple.md).
    @Suite("Apple glue: the WKWebView bridge adapter")
    @MainActor
    struct WebKitBridgeAdapterTests {
        @Test("install adds the registration's script at document start, main frame only, in its content world")
        func installAddsTheScriptAndTheHandler() {
            let registration = BridgeRegistration(
                handlerName: "glueTest", contentWorldName: "glue-world", bootstrapScript: "window.glueTest = 1;",
                allowList: OriginAllowList([]))
            let controller = WKUserContentController()
            let adapter = WebKitBridgeAdapter { _, _, _ in }
            adapter.install(in: controller, registration: registration)
            #expect(controller.userScripts.count == 1)
            let script = controller.userScripts.first
            #expect(script?.source == "window.glueTest = 1;")
            #expect(script?.injectionTime == .atDocumentStart)
            #expect(script?.isForMainFrameOnly == true)
            controller.removeAllScriptMessageHandlers()
        }
    }
#endif
