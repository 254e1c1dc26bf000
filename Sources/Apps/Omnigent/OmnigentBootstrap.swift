/// The document-start script Omnigent's shell injects, as text (protocol version 1).
///
/// Rules (O-BRIDGE-1/2/9, O-PICK-2): it defines a frozen, non-writable `window.omnigentNative` with
/// `kind: "ios"` and `nativeBridgeVersion: 1` and methods that post `{method, …}` to
/// `webkit.messageHandlers.omnigentNative`; it defines the six non-writable `window.__omnigentNativeEmit*`
/// functions the app calls (each re-dispatched as a `omnigent-native-<name>` DOM event); `getServerPicker()`
/// returns a promise that settles as a timeout after 3 s without an answer; and only after all of that it
/// dispatches `omnigent-native-bridge-ready`, so a listener always finds the object complete.
public enum OmnigentBootstrap {
    /// The bridge protocol version.
    public static let version = 1
    /// The script message handler name.
    public static let handlerName = "omnigentNative"
    /// The event dispatched once the object is defined.
    public static let readyEvent = "omnigent-native-bridge-ready"
    /// Milliseconds the page waits for a server picker answer.
    public static let serverPickerTimeoutMilliseconds = 3_000

    /// The names of the app → page emit functions, after `__omnigentNativeEmit`.
    public static let emitNames = [
        "NotificationActivated", "OpenPath", "ViewModeChanged", "Insets", "ServerPicker", "SidebarDrag",
    ]

    /// The script text.
    public static var script: String {
        """
        (function () {
          "use strict";
          if (window.omnigentNative) { return; }
          var handler = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.\(handlerName);
          function post(message) { if (handler) { handler.postMessage(message); } }
          var pending = {};
          var nextRequest = 1;
          function emit(name, detail) {
            window.dispatchEvent(new CustomEvent("omnigent-native-" + name, { detail: detail }));
          }
          var emitters = {
            NotificationActivated: function (path) { emit("notification-activated", { path: path }); },
            OpenPath: function (path) { emit("open-path", { path: path }); },
            ViewModeChanged: function (mode) { emit("view-mode-changed", { mode: mode }); },
            Insets: function (bottomBar) { emit("insets", { bottomBar: bottomBar }); },
            ServerPicker: function (requestId, info) {
              var entry = pending[requestId];
              if (!entry) { return; }
              delete pending[requestId];
              clearTimeout(entry.timer);
              entry.resolve(info);
            },
            SidebarDrag: function (phase, progress) { emit("sidebar-drag", { phase: phase, progress: progress }); }
          };
          Object.keys(emitters).forEach(function (name) {
            Object.defineProperty(window, "__omnigentNativeEmit" + name, {
              value: emitters[name], writable: false, configurable: false, enumerable: false
            });
          });
          var api = Object.freeze({
            kind: "ios",
            nativeBridgeVersion: \(version),
            nativeWebReady: function () { post({ method: "nativeWebReady", version: \(version) }); },
            nativeHeartbeat: function () { post({ method: "nativeHeartbeat", version: \(version) }); },
            setColorScheme: function (scheme) { post({ method: "setColorScheme", scheme: scheme }); },
            setBadgeCount: function (count) { post({ method: "setBadgeCount", count: count }); },
            notify: function (options) {
              var o = options || {};
              post({ method: "notify", title: o.title, body: o.body, navigatePath: o.navigatePath });
            },
            setViewMode: function (options) {
              var o = options || {};
              post({ method: "setViewMode", mode: o.mode, terminalEnabled: o.terminalEnabled,
                     terminalStartingUp: o.terminalStartingUp, visible: o.visible });
            },
            getServerPicker: function () {
              return new Promise(function (resolve, reject) {
                var requestId = "picker-" + (nextRequest++);
                var timer = setTimeout(function () {
                  delete pending[requestId];
                  reject(new Error("getServerPicker timed out"));
                }, \(serverPickerTimeoutMilliseconds));
                pending[requestId] = { resolve: resolve, timer: timer };
                post({ method: "getServerPicker", requestId: requestId });
              });
            },
            switchServer: function (url) { post({ method: "switchServer", url: url }); },
            openServerSetup: function () { post({ method: "openServerSetup" }); }
          });
          Object.defineProperty(window, "omnigentNative", {
            value: api, writable: false, configurable: false, enumerable: true
          });
          window.dispatchEvent(new Event("\(readyEvent)"));
        })();
        """
    }
}
