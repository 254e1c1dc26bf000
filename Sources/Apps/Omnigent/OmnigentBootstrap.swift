/// The document-start script Omnigent's shell injects, as text (protocol version 1).
///
/// Rules (O-BRIDGE-1/2/4/9, O-PICK-2), as the real app's script behaves: it defines a frozen, non-writable
/// `window.omnigentNative` with `kind: "ios"` and `nativeBridgeVersion: 1` and methods that post
/// `{method, …}` to `webkit.messageHandlers.omnigentNative` (`nativeWebReady(v)` and `nativeHeartbeat(v)`
/// post the version they are given, so a page of another protocol reaches the mismatch state); it defines
/// the non-writable `window.__omnigentNativeEmit*` functions the app calls; `getServerPicker()` returns a
/// promise that resolves `null` after 3 s without an answer, and the `ServerPicker` emit resolves it with
/// the info when that is an object, else `null`; and only after all of that it dispatches
/// `omnigent-native-bridge-ready`, so a listener always finds the object complete.
///
/// The object serves exactly what Omnigent's own web UI (0.19.1) calls, with the types it expects:
/// `notify` and `signOutOfServer` return promises of a boolean (the app answers through
/// `__omnigentNativeEmitReply`, and without an answer they settle as `false` after 10 s);
/// `getKeyboardViewport()` returns the last `{width, height}` the app reported, or `null`; and
/// `onNotificationActivated`, `onOpenPath`, `onSidebarDrag`, `onNativeInsets` and
/// `onKeyboardViewportChanged` and `onViewModeChanged` each take a callback and return the function that
/// unsubscribes it; `onNativeInsets` calls a late subscriber at once with the last insets. An emit calls every
/// subscriber (one that throws does not stop the others) and also dispatches an `omnigent-native-<name>` DOM
/// event; `NotificationActivated` and `OpenPath` pass on only a path starting with `/`, `ViewModeChanged`
/// only `chat` or `terminal`. The app calls every emit as `window.__omnigentNativeEmit<Name>?.(…)`, so a page
/// without the script does not throw. The page never sends `nativeWebReady`; a page that does opts in to the
/// watchdog (see `OmnigentBridge`).
public enum OmnigentBootstrap {
    /// The bridge protocol version.
    public static let version = 1
    /// The script message handler name.
    public static let handlerName = "omnigentNative"
    /// The event dispatched once the object is defined.
    public static let readyEvent = "omnigent-native-bridge-ready"
    /// Milliseconds the page waits for a server picker answer before it reads `null`.
    public static let serverPickerTimeoutMilliseconds = 3_000
    /// Milliseconds the page waits for the answer to `notify` or `signOutOfServer` before it reads `false`.
    public static let replyTimeoutMilliseconds = 10_000

    /// The names of the app → page emit functions, after `__omnigentNativeEmit`.
    public static let emitNames = [
        "NotificationActivated", "OpenPath", "ViewModeChanged", "Insets", "ServerPicker", "SidebarDrag",
        "KeyboardViewport", "Reply",
    ]

    /// The page-facing methods of `window.omnigentNative`, as the web UI looks them up.
    public static let methodNames = [
        "nativeWebReady", "nativeHeartbeat", "setColorScheme", "setBadgeCount", "notify", "setViewMode",
        "setServerSwitcherHidden", "setDocumentScrollEnabled", "getKeyboardViewport", "getServerPicker",
        "switchServer", "signOutOfServer", "openServerSetup", "onNotificationActivated", "onOpenPath",
        "onSidebarDrag", "onNativeInsets", "onKeyboardViewportChanged", "onViewModeChanged",
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
          var keyboardViewport = null;
          var lastInsets = null;
          var subscribers = { notification: [], openPath: [], sidebarDrag: [], insets: [], keyboard: [], viewMode: [] };
          function subscribe(list) {
            return function (callback) {
              if (typeof callback !== "function") { return function () {}; }
              var entry = { callback: callback };
              list.push(entry);
              return function () {
                var index = list.indexOf(entry);
                if (index >= 0) { list.splice(index, 1); }
              };
            };
          }
          function publish(list, args) {
            list.slice().forEach(function (entry) {
              try { entry.callback.apply(null, args); } catch (error) { setTimeout(function () { throw error; }, 0); }
            });
          }
          function emit(name, detail) {
            window.dispatchEvent(new CustomEvent("omnigent-native-" + name, { detail: detail }));
          }
          function request(prefix, message, timeoutMs, fallback) {
            return new Promise(function (resolve) {
              var requestId = prefix + "-" + (nextRequest++);
              var timer = setTimeout(function () {
                delete pending[requestId];
                resolve(fallback);
              }, timeoutMs);
              pending[requestId] = { resolve: resolve, timer: timer };
              message.requestId = requestId;
              post(message);
            });
          }
          function settle(requestId, value) {
            var entry = pending[requestId];
            if (!entry) { return; }
            delete pending[requestId];
            clearTimeout(entry.timer);
            entry.resolve(value);
          }
          var emitters = {
            NotificationActivated: function (path) {
              if (typeof path !== "string" || path.charAt(0) !== "/") { return; }
              publish(subscribers.notification, [path]);
              emit("notification-activated", { path: path });
            },
            OpenPath: function (path) {
              if (typeof path !== "string" || path.charAt(0) !== "/") { return; }
              publish(subscribers.openPath, [path]);
              emit("open-path", { path: path });
            },
            ViewModeChanged: function (mode) {
              if (mode !== "chat" && mode !== "terminal") { return; }
              publish(subscribers.viewMode, [mode]);
              emit("view-mode-changed", { mode: mode });
            },
            Insets: function (bottomBar, topBar) {
              var insets = { topBar: typeof topBar === "number" && isFinite(topBar) ? topBar : 0,
                             bottomBar: typeof bottomBar === "number" && isFinite(bottomBar) ? bottomBar : 0 };
              lastInsets = insets;
              publish(subscribers.insets, [insets]);
              emit("insets", insets);
            },
            ServerPicker: function (requestId, info) {
              settle(requestId, info && typeof info === "object" ? info : null);
            },
            SidebarDrag: function (phase, progress) {
              publish(subscribers.sidebarDrag, [phase, progress]);
              emit("sidebar-drag", { phase: phase, progress: progress });
            },
            KeyboardViewport: function (width, height) {
              keyboardViewport = Object.freeze({ width: width, height: height });
              publish(subscribers.keyboard, []);
            },
            Reply: function (requestId, value) { settle(requestId, value); }
          };
          Object.keys(emitters).forEach(function (name) {
            Object.defineProperty(window, "__omnigentNativeEmit" + name, {
              value: emitters[name], writable: false, configurable: false, enumerable: false
            });
          });
          function subscribeReplaying(list) {
            var add = subscribe(list);
            return function (callback) {
              var unsubscribe = add(callback);
              if (typeof callback === "function" && lastInsets) {
                try { callback(lastInsets); } catch (error) { setTimeout(function () { throw error; }, 0); }
              }
              return unsubscribe;
            };
          }
          var api = Object.freeze({
            kind: "ios",
            nativeBridgeVersion: \(version),
            nativeWebReady: function (version) { post({ method: "nativeWebReady", version: version }); },
            nativeHeartbeat: function (version) { post({ method: "nativeHeartbeat", version: version }); },
            setColorScheme: function (scheme) { post({ method: "setColorScheme", scheme: scheme }); },
            setBadgeCount: function (count) {
              post({ method: "setBadgeCount", count: typeof count === "number" && isFinite(count) ? count : 0 });
            },
            notify: function (options) {
              var o = options || {};
              return request("notify", { method: "notify", title: o.title, body: o.body,
                                          navigatePath: o.navigatePath }, \(replyTimeoutMilliseconds), false);
            },
            setViewMode: function (options) {
              var o = options || {};
              post({ method: "setViewMode", mode: o.mode === "terminal" ? "terminal" : "chat",
                     terminalEnabled: !!o.terminalEnabled, terminalStartingUp: !!o.terminalStartingUp,
                     visible: !!o.visible });
            },
            setServerSwitcherHidden: function (hidden) { post({ method: "setServerSwitcherHidden", hidden: hidden }); },
            setDocumentScrollEnabled: function (enabled) {
              post({ method: "setDocumentScrollEnabled", enabled: enabled });
            },
            getKeyboardViewport: function () { return keyboardViewport; },
            getServerPicker: function () {
              return request("picker", { method: "getServerPicker" }, \(serverPickerTimeoutMilliseconds), null);
            },
            switchServer: function (url) {
              if (typeof url !== "string") { return Promise.reject(new Error("invalid server")); }
              post({ method: "switchServer", url: url });
              return Promise.resolve();
            },
            signOutOfServer: function () {
              return request("signout", { method: "signOutOfServer" }, \(replyTimeoutMilliseconds), false);
            },
            openServerSetup: function () { post({ method: "openServerSetup" }); },
            onNotificationActivated: subscribe(subscribers.notification),
            onOpenPath: subscribe(subscribers.openPath),
            onSidebarDrag: subscribe(subscribers.sidebarDrag),
            onNativeInsets: subscribeReplaying(subscribers.insets),
            onKeyboardViewportChanged: subscribe(subscribers.keyboard),
            onViewModeChanged: subscribe(subscribers.viewMode)
          });
          Object.defineProperty(window, "omnigentNative", {
            value: api, writable: false, configurable: false, enumerable: true
          });
          window.dispatchEvent(new Event("\(readyEvent)"));
        })();
        """
    }
}
