import CompanionCore

/// What an app registers to put its bridge into a web view: the handler name its page posts to, the
/// content world the handler and script live in, the document-start script that defines the page-side
/// object, and the origins allowed to talk to it.
///
/// Rule: the kit knows no app's names; every name a page sees comes from the app through this value, and
/// the glue (`WebKitBridgeAdapter`) installs exactly what it holds. A `nil` content world means the page's
/// own world, which an app chooses only when the page must reach the object itself.
public struct BridgeRegistration: Sendable, Hashable {
    /// The script message handler name (`window.webkit.messageHandlers.<handlerName>`).
    public let handlerName: String
    /// The named content world of the handler and script, or `nil` for the page's world.
    public let contentWorldName: String?
    /// The script injected at document start, in the main frame only.
    public let bootstrapScript: String
    /// The origins whose pages may use the bridge.
    public let allowList: OriginAllowList

    /// Creates a registration.
    public init(handlerName: String, contentWorldName: String?, bootstrapScript: String, allowList: OriginAllowList) {
        self.handlerName = handlerName
        self.contentWorldName = contentWorldName
        self.bootstrapScript = bootstrapScript
        self.allowList = allowList
    }
}

/// The page side of a `request`-dialect bridge, as script text: a frozen global object with the bridge's
/// `version`, its `ops`, `call(op, args)` returning a promise, and `reply(message)` that settles it.
///
/// Rules: the global is defined once, non-writable and non-configurable, so a page script cannot replace
/// it; `call` posts `{id, op, args}` (a missing `args` becomes `null`) with ids `<handler>-1`, `<handler>-2`,
/// …; a reply for an unknown id is ignored; a failure rejects with an `Error` whose message is the reply's
/// and whose `code` is the reply's code. Every name and value enters the script as a JSON literal
/// (`JavaScriptLiteral`), so no text an app passes can break out of it.
public enum RequestBridgeScript {
    /// The document-start script defining `window[global]` for the handler `handlerName`; `displayName`
    /// names the bridge in the error a call gets when the handler is missing.
    public static func bootstrap(
        global: String, handlerName: String, displayName: String, version: String, ops: [String]
    ) -> String {
        let globalLiteral = JavaScriptLiteral.string(global)
        let opsLiteral = JavaScriptLiteral.literal(.array(ops.map(JSONValue.string)))
        return """
            (function () {
              "use strict";
              if (window[\(globalLiteral)]) { return; }
              var handlers = window.webkit && window.webkit.messageHandlers;
              var handler = handlers && handlers[\(JavaScriptLiteral.string(handlerName))];
              var pending = {};
              var next = 1;
              var app = {
                version: \(JavaScriptLiteral.string(version)),
                ops: Object.freeze(\(opsLiteral)),
                call: function (op, args) {
                  return new Promise(function (resolve, reject) {
                    if (!handler) { reject(new Error(\(JavaScriptLiteral.string(displayName + " bridge unavailable")))); return; }
                    var id = \(JavaScriptLiteral.string(handlerName + "-")) + (next++);
                    pending[id] = { resolve: resolve, reject: reject };
                    handler.postMessage({ id: id, op: op, args: args === undefined ? null : args });
                  });
                },
                reply: function (message) {
                  var entry = message && pending[message.id];
                  if (!entry) { return; }
                  delete pending[message.id];
                  if (message.ok) { entry.resolve(message.result); }
                  else { entry.reject(Object.assign(new Error(message.error && message.error.message),
                                                    { code: message.error && message.error.code })); }
                }
              };
              Object.defineProperty(window, \(globalLiteral), {
                value: Object.freeze(app), writable: false, configurable: false, enumerable: true
              });
            })();
            """
    }

    /// The script that delivers `reply` to the page's pending `window[global].call`.
    public static func reply(global: String, _ reply: BridgeReply) -> String {
        let globalLiteral = JavaScriptLiteral.string(global)
        return "window[\(globalLiteral)] && window[\(globalLiteral)].reply(\(JavaScriptLiteral.literal(reply.json)));"
    }
}
