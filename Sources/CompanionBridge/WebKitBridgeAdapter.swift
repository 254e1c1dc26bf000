#if canImport(WebKit)
    import CompanionCore
    import WebKit

    /// The thin WKWebView glue for every app's bridge. Not compiled on Linux (no WebKit there): everything it calls
    /// (origin checks, codec, ops, effects, scripts) lives in the platform-independent files and is tested on
    /// Linux; this file only converts WebKit's types and forwards.
    ///
    /// Rule: the message body is converted to `JSONValue` through `JSONSerialization`, the source is built from
    /// `frameInfo` (main frame flag, security origin) and the web view's current URL, and nothing else is read.
    @MainActor
    public final class WebKitBridgeAdapter: NSObject, WKScriptMessageHandler {
        private let onMessage: @MainActor (JSONValue, BridgeSource, WKWebView?) -> Void

        /// Creates an adapter calling `onMessage` with the decoded body, its source and the web view.
        public init(onMessage: @escaping @MainActor (JSONValue, BridgeSource, WKWebView?) -> Void) {
            self.onMessage = onMessage
        }

        /// Converts a WebKit message and forwards it; a body that is not JSON-serializable becomes `null`.
        public func userContentController(
            _ userContentController: WKUserContentController, didReceive message: WKScriptMessage
        ) {
            let origin = message.frameInfo.securityOrigin
            let port = origin.port == 0 ? "" : ":\(origin.port)"
            let source = BridgeSource(
                isMainFrame: message.frameInfo.isMainFrame, frameOrigin: "\(origin.protocol)://\(origin.host)\(port)",
                pageURL: message.webView?.url?.absoluteString)
            var body = JSONValue.null
            if JSONSerialization.isValidJSONObject([message.body]),
                let data = try? JSONSerialization.data(withJSONObject: [message.body]),
                let value = JSONValue(data: data)?[0]
            {
                body = value
            }
            onMessage(body, source, message.webView)
        }

        /// Installs a document-start user script and this handler under `name` in `world`.
        public func install(
            in controller: WKUserContentController, name: String, script: String, world: WKContentWorld
        ) {
            controller.addUserScript(
                WKUserScript(source: script, injectionTime: .atDocumentStart, forMainFrameOnly: true, in: world))
            controller.add(self, contentWorld: world, name: name)
        }

        /// Installs what an app registered: its script and this handler, in its named world (or the page's).
        public func install(in controller: WKUserContentController, registration: BridgeRegistration) {
            let world = registration.contentWorldName.map { WKContentWorld.world(name: $0) } ?? .page
            install(in: controller, name: registration.handlerName, script: registration.bootstrapScript, world: world)
        }
    }
#endif
