import CompanionBridge
import CompanionCore
import Foundation

/// Where and how PrompTugal's `pt` bridge is installed in a web view.
///
/// Rules:
/// - The allow-list is a fixed list: `https://promptugal.news` plus the origins of the `.web` destinations, https
///   only (P-OPEN-11). Messages are taken from the main frame only, with the kit's origin check (P-BRIDGE-2/3).
/// - The scripts are installed only for pages on the allow-list; any other page gets nothing, and each script
///   checks the page's `location.origin` when it runs and does nothing on any other origin, so `window.ptApp`
///   never exists there, even on a page that navigated after the check (P-OPEN-12).
/// - Content worlds (P-BRIDGE-1, decided in docs/promptugal.md): the `pt` handler lives in its own content world,
///   and `window.ptApp` is defined in the page's world so the website's scripts can call it. The two meet only
///   through DOM events carrying JSON text: `ptApp.call` dispatches `pt:call`, the relay in the bridge world posts
///   it to `pt`, and the reply comes back as `pt:reply`. Page scripts never touch `window.webkit.messageHandlers.pt`
///   and cannot replace the relay.
public struct PrompTugalBridgeConfiguration: Sendable {
    /// Which world a script runs in.
    public enum World: String, Sendable, Hashable {
        /// The page's own world, where its scripts run.
        case page
        /// The bridge's own world (`WKContentWorld.world(name:)`), named `contentWorldName`.
        case bridge
    }

    /// A script to install at document start.
    public struct UserScript: Sendable, Hashable {
        /// The source.
        public let source: String
        /// The world it runs in.
        public let world: World
        /// Whether only the main frame gets it (always true here).
        public let mainFrameOnly: Bool
    }

    /// The message handler's name.
    public static let handlerName = PromptugalBridge.handlerName
    /// The bridge's content world; never the page's.
    public static let contentWorldName = PromptugalBridge.contentWorldName
    /// The world the `pt` message handler is added to (`WKUserContentController.add(_:contentWorld:name:)`): the
    /// bridge's, so page scripts never see `window.webkit.messageHandlers.pt` (P-BRIDGE-1).
    public static let handlerWorld = World.bridge
    /// The DOM event a page call travels in.
    public static let callEvent = "pt:call"
    /// The DOM event a reply travels in.
    public static let replyEvent = "pt:reply"
    /// The phase-1 ops the page is told about.
    public static let ops = PromptugalBridge.phaseOneOps

    /// The app's marketing version, as `ptApp.version` (P-OPEN-13).
    public let version: String
    /// The allowed origins.
    public let allowList: OriginAllowList

    /// The configuration for `destinations`: `https://promptugal.news` plus their web origins.
    public init(
        version: String, destinations: DestinationRegistry = .promptugal(),
        newsSite: URL = TeamDataBases.production.news
    ) {
        self.version = version
        var texts = [newsSite.absoluteString]
        for destination in destinations.destinations {
            if case .web(let url) = destination.kind { texts.append(url.absoluteString) }
        }
        let addresses = texts.compactMap { try? ServerAddress(parsing: $0, policy: .httpsOnly) }
        self.allowList = OriginAllowList(addresses.filter { $0.scheme == "https" })
    }

    /// A configuration for the pages of `allowList` only (tests: a loopback page, which the https-only list of
    /// the app can never hold).
    init(version: String, allowList: OriginAllowList) {
        self.version = version
        self.allowList = allowList
    }

    /// Whether `pageURL`'s origin is allowed.
    public func allows(_ pageURL: URL) -> Bool {
        guard let origin = OriginAllowList.origin(of: pageURL.absoluteString) else { return false }
        return allowList.origins.contains(origin)
    }

    /// The document-start scripts for a page: none for a page not on the allow-list.
    public func userScripts(for pageURL: URL) -> [UserScript] {
        guard allows(pageURL) else { return [] }
        return [
            UserScript(source: relayScript, world: .bridge, mainFrameOnly: true),
            UserScript(source: pageScript, world: .page, mainFrameOnly: true),
        ]
    }

    /// The condition, in JavaScript, that the page running a script is not on the allow-list: its
    /// `location.origin` (none counts as not allowed) is not one of the allowed origins.
    var pageNotAllowed: String {
        let list = JavaScriptLiteral.literal(.array(allowList.origins.sorted().map(JSONValue.string)))
        return "!window.location || \(list).indexOf(window.location.origin) < 0"
    }

    /// The page-world script: `window.ptApp = { version, ops, call }`, frozen and non-writable; on a page whose
    /// `location.origin` is not on the allow-list it defines nothing (P-OPEN-12), even where the glue installed it.
    public var pageScript: String {
        let opsLiteral = JavaScriptLiteral.literal(.array(Self.ops.map(JSONValue.string)))
        return """
            (function (window) {
              "use strict";
              if (\(pageNotAllowed)) { return; }
              if (window.ptApp) { return; }
              var pending = {};
              var next = 1;
              window.addEventListener(\(JavaScriptLiteral.string(Self.replyEvent)), function (event) {
                var message;
                try { message = JSON.parse(event.detail); } catch (e) { return; }
                var entry = message && pending[message.id];
                if (!entry) { return; }
                delete pending[message.id];
                if (message.ok) { entry.resolve(message.result); }
                else { entry.reject(Object.assign(new Error(message.error && message.error.message),
                                                  { code: message.error && message.error.code })); }
              });
              var app = {
                version: \(JavaScriptLiteral.string(version)),
                ops: Object.freeze(\(opsLiteral)),
                call: function (op, args) {
                  return new Promise(function (resolve, reject) {
                    var id = "pt-" + (next++);
                    pending[id] = { resolve: resolve, reject: reject };
                    window.dispatchEvent(new CustomEvent(\(JavaScriptLiteral.string(Self.callEvent)), {
                      detail: JSON.stringify({ id: id, op: op, args: args === undefined ? null : args })
                    }));
                  });
                }
              };
              Object.defineProperty(window, "ptApp", {
                value: Object.freeze(app), writable: false, configurable: false, enumerable: true
              });
            })(window);
            """
    }

    /// The bridge-world script: relays `pt:call` events to the `pt` handler, only on a page whose
    /// `location.origin` is on the allow-list.
    public var relayScript: String {
        """
        (function (window) {
          "use strict";
          if (\(pageNotAllowed)) { return; }
          var handler = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.\(Self.handlerName);
          if (!handler) { return; }
          window.addEventListener(\(JavaScriptLiteral.string(Self.callEvent)), function (event) {
            if (typeof event.detail !== "string") { return; }
            var message;
            try { message = JSON.parse(event.detail); } catch (e) { return; }
            handler.postMessage(message);
          });
        })(window);
        """
    }

    /// The script, run in the bridge world, that hands `reply` to the page: only while the page's
    /// `location.origin` is still on the allow-list (P-BRIDGE-11); on any other origin it throws and the page
    /// gets nothing.
    public func replyScript(_ reply: BridgeReply) -> String {
        let text = JavaScriptLiteral.string(reply.json.jsonString())
        return """
            (function () {
              \(ScheduleSync.originGuard(allowList.origins))
              window.dispatchEvent(new CustomEvent(\(JavaScriptLiteral.string(Self.replyEvent)), { detail: \(text) }));
              return null;
            })();
            """
    }

    /// The bridge endpoint over `services`: the op registry behind this allow-list, journaling to `journal`.
    public func endpoint(services: any PromptugalBridgeServices, journal: Journal) -> BridgeEndpoint {
        BridgeEndpoint(allowList: allowList, registry: PromptugalBridge.registry(services: services), journal: journal)
    }
}
